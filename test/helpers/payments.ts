/**
 * Payments test helpers: the service started with Stripe keys and STRIPE_API_URL pointed at a
 * FakeStripe, starting payments over REST, and webhooks posted as Stripe posts them.
 */
import { FakeStripe, FAKE_STRIPE_KEYS } from './fake-stripe';
import { useTestServer } from './setup';
import { Factory } from './factories';
import { TestServer } from './server';
import { OrderWorld, useOrderWorld } from './orders';

/**
 * A payments file's set-up: one FakeStripe and one server using it, and a fresh order world
 * before each test. `const t = usePaymentWorld()` gives `t.server`, `t.make`, `t.w` and `t.fake`.
 */
export function usePaymentWorld() {
  const fake = new FakeStripe();
  return Object.assign(
    useOrderWorld({}, (ready, env) => useStripeServer(fake, ready, env)),
    { fake },
  );
}

/** `fake` and a server using it for the test file; both are reset before each test. */
function useStripeServer(fake: FakeStripe, ready: (server: TestServer, make: Factory) => void, env: Record<string, string>) {
  const serverEnv: Record<string, string> = {
    ...FAKE_STRIPE_KEYS,
    STRIPE_MAX_NETWORK_RETRIES: '0',
    STRIPE_TIMEOUT_MS: '1500',
    PAYMENT_CURRENCY: 'MAD',
    ...env,
  };
  beforeAll(async () => {
    serverEnv.STRIPE_API_URL = await fake.start();
  });
  useTestServer(ready, serverEnv);
  beforeEach(() => fake.reset());
  afterAll(() => fake.stop());
}

/** Ids of the methods the migration adds. */
export const METHOD = { card: 1, cash: 2 };

export function startPayment(
  server: TestServer,
  w: OrderWorld,
  orderId: number,
  method: keyof typeof METHOD | number,
  headers?: Record<string, string>,
) {
  const payment_method_id = typeof method === 'number' ? method : METHOD[method];
  return server.http.post('/api/v1/payments', { order_id: orderId, payment_method_id }, { token: w.customer.token, headers });
}

/** POSTs an event to the Stripe webhook, signed unless `signature` is given. */
export function postWebhook(
  server: TestServer,
  event: Record<string, unknown>,
  opts: { signature?: string; secret?: string; timestamp?: number } = {},
) {
  const raw = JSON.stringify(event);
  const signature = opts.signature ?? FakeStripe.sign(raw, opts.secret, opts.timestamp);
  return server.http.request('POST', '/api/v1/payments/webhooks/stripe', undefined, { raw, headers: { 'stripe-signature': signature } });
}

/** The customer's SDK confirms the card, and Stripe tells us. */
export async function authorizeCard(server: TestServer, fake: FakeStripe, intentId: string) {
  const intent = fake.confirm(intentId, 'authorized');
  const res = await postWebhook(server, fake.event('payment_intent.amount_capturable_updated', intent));
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${JSON.stringify(res.body)}`);
  return intent;
}

/** The intent id the fake made for a start-payment answer (its client secret starts with it). */
export const intentOf = (body: { data: { client_secret: string } }) => body.data.client_secret.split('_secret_')[0];
