/**
 * Runs the tests' fake FCM on its own and prints every push it receives, to watch the
 * notifications of a demo order (README "Notifications"):
 *   npm run fake-fcm -- [--port 12112]
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FakeFcm } from '../test/helpers/fake-fcm';

async function main() {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '12112' } } });
  const fake = new FakeFcm();
  const url = await fake.start(Number(values.port));
  const file = path.join(os.tmpdir(), 'fake-fcm-service-account.json');
  writeFileSync(file, fake.serviceAccount(), { mode: 0o600 });
  fake.onReceive = (push) =>
    console.log(
      `${new Date(push.at).toISOString()} → ${push.token.slice(0, 16)}…  ${push.notification.title} — ${push.notification.body}  ${JSON.stringify(push.data)}`,
    );
  console.log(`fake FCM on ${url}. Start the service with:`);
  console.log(`GOOGLE_APPLICATION_CREDENTIALS=${file} FCM_API_URL=${url} npm start`);
  console.log('and sign in with a device_id and push_token (verify-otp); its notifications print here.');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
