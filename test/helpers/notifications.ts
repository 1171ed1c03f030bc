/**
 * Notification tests' set-up: a FakeFcm beside the file's server (its worker on, polling fast),
 * devices signed in with push tokens, and waiting for pushes by polling.
 */
import { FakeFcm } from './fake-fcm';
import { FakePushService } from './fake-push-service';
import { Factory } from './factories';
import { passCooldown } from './auth';
import { OrderWorld, useOrderWorld } from './orders';
import { TestServer } from './server';
import { useTestServer } from './setup';

export const NOTIFY_ENV = {
  NOTIFICATIONS_WORKER: 'true',
  NOTIFICATIONS_POLL_MS: '50',
  NOTIFICATIONS_BACKOFF_MS: '20',
  NOTIFICATIONS_MAX_ATTEMPTS: '4',
  // Devices sign in again and again from the same numbers: the code limits have their own tests.
  OTP_MAX_PER_PHONE_PER_HOUR: '1000',
  OTP_MAX_PER_PHONE_PER_DAY: '1000',
};

/**
 * `const t = useNotifyWorld()`: t.server, t.make, t.w (an order world), t.fcm and t.webPush (a
 * fake push service); `more` fakes (Stripe's) start beside them and pass their env to the server.
 */
export function useNotifyWorld(env: Record<string, string> = {}, more: Fake[] = []) {
  const fcm = new FakeFcm();
  const webPush = new FakePushService();
  return Object.assign(
    useOrderWorld(env, (ready, serverEnv) => useFakesServer([fcm, webPush, ...more], ready, serverEnv)),
    { fcm, webPush },
  );
}

export type Fake = { start(): Promise<string>; stop(): Promise<void>; reset(): void; env(): Record<string, string> };

function useFakesServer(fakes: Fake[], ready: (server: TestServer, make: Factory) => void, env: Record<string, string>) {
  const serverEnv: Record<string, string> = { ...NOTIFY_ENV, ...env };
  beforeAll(async () => {
    for (const fake of fakes) {
      await fake.start();
      Object.assign(serverEnv, fake.env());
    }
  });
  useTestServer(ready, serverEnv);
  beforeEach(() => fakes.forEach((fake) => fake.reset()));
  afterAll(() => Promise.all(fakes.map((fake) => fake.stop())));
}

/** Signs `phone` in again from a device with a push token (send-otp, verify-otp); answers the access token. */
export async function signInDevice(
  server: TestServer,
  phone: string,
  device: { deviceId?: string; pushToken: string; language?: string },
): Promise<string> {
  await passCooldown(server);
  const sent = await server.http.post('/v1/auth/customer/send-otp', { phone_number: phone });
  if (sent.status !== 202) throw new Error(`send-otp: ${sent.status} ${JSON.stringify(sent.body)}`);
  const verified = await server.http.post(
    '/v1/auth/customer/verify-otp',
    {
      phone_number: phone,
      verification_code: server.whatsapp.lastCodeFor(phone),
      device_id: device.deviceId,
      push_token: device.pushToken,
    },
    { headers: device.language ? { 'accept-language': device.language } : {} },
  );
  if (verified.status !== 200) throw new Error(`verify-otp: ${verified.status} ${JSON.stringify(verified.body)}`);
  return verified.body.data.access_token;
}

/** Polls until `check` passes (the worker sends after commit, in the background). */
export async function eventually<T>(check: () => T | Promise<T>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

export type { OrderWorld };
