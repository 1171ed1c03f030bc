/**
 * Notification tests' set-up: a FakeFcm beside the file's server (its worker on, polling fast),
 * devices signed in with push tokens, and waiting for pushes by polling.
 */
import { FakeFcm } from './fake-fcm';
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

/** `const t = useNotifyWorld()`: t.server, t.make, t.w (an order world) and t.fcm. */
export function useNotifyWorld(env: Record<string, string> = {}) {
  const fcm = new FakeFcm();
  return Object.assign(
    useOrderWorld(env, (ready, serverEnv) => useFcmServer(fcm, ready, serverEnv)),
    { fcm },
  );
}

function useFcmServer(fcm: FakeFcm, ready: (server: TestServer, make: Factory) => void, env: Record<string, string>) {
  const serverEnv: Record<string, string> = { ...NOTIFY_ENV, ...env };
  beforeAll(async () => {
    await fcm.start();
    Object.assign(serverEnv, fcm.env());
  });
  useTestServer(ready, serverEnv);
  beforeEach(() => fcm.reset());
  afterAll(() => fcm.stop());
}

/** Signs `phone` in again from a device with a push token (send-otp, verify-otp); answers the access token. */
export async function signInDevice(
  server: TestServer,
  phone: string,
  device: { deviceId: string; pushToken: string; language?: string },
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
