/**
 * Runs the tests' fake Stripe on its own, to try card payments by hand without Stripe keys
 * (README "Payments"). It answers the SDK like Stripe's PaymentIntents API, and
 * `POST /_fake/payment_intents/<id>/confirm?outcome=authorized|requires_action|declined` plays
 * the app's card confirmation, then sends the signed webhook to the service.
 *   npm run fake-stripe -- [--port 12111] [--webhook http://localhost:3000/api/v1/payments/webhooks/stripe]
 */
import { FakeStripe, FAKE_STRIPE_KEYS } from '../test/helpers/fake-stripe';
import { parseArgs } from 'node:util';

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '12111' },
      webhook: { type: 'string', default: 'http://localhost:3000/api/v1/payments/webhooks/stripe' },
    },
  });
  const fake = new FakeStripe();
  fake.webhookUrl = values.webhook;
  const url = await fake.start(Number(values.port));
  console.log(`fake Stripe on ${url}; webhooks to ${values.webhook}. Start the service with:`);
  console.log(
    Object.entries({ ...FAKE_STRIPE_KEYS, STRIPE_API_URL: url })
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') + ' npm start',
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
