/** Signing in through the real endpoints, for tests that need a customer. */
import { TestServer } from './server';

export interface SignedIn {
  token: string;
  user: { id: number; phone_number: string; first_name: string; last_name: string; created_at: string };
}

let nextPhone = 0;

/** A fresh valid phone number per call (+1 415 555 01xx are valid US numbers). */
export function uniquePhone(): string {
  nextPhone += 1;
  return `+1415555${String(1000 + nextPhone).slice(-4)}`;
}

/** send-otp -> verify-otp -> complete-profile through the WhatsApp fake. */
export async function registerCustomer(
  server: TestServer,
  phone = uniquePhone(),
  names = { first_name: 'Amina', last_name: 'Haddad' },
): Promise<SignedIn> {
  const sent = await server.http.post('/v1/auth/customer/send-otp', { phone_number: phone });
  if (sent.status !== 202) throw new Error(`send-otp answered ${sent.status}: ${JSON.stringify(sent.body)}`);
  const code = server.whatsapp.lastCodeFor(phone);
  const verified = await server.http.post('/v1/auth/customer/verify-otp', { phone_number: phone, verification_code: code });
  if (verified.status !== 200) throw new Error(`verify-otp answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  const registration_token = verified.body.data.registration_token;
  const created = await server.http.post('/v1/auth/customer/complete-profile', { phone_number: phone, registration_token, ...names });
  if (created.status !== 201) throw new Error(`complete-profile answered ${created.status}: ${JSON.stringify(created.body)}`);
  return { token: created.body.data.access_token, user: created.body.data.user };
}

/** Moves every send back in time so the resend cooldown no longer applies. */
export async function passCooldown(server: TestServer): Promise<void> {
  await server.db.orm.em.fork().execute(`update otp_sends set created_at = created_at - interval '2 minutes'`);
}
