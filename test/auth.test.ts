/** Spec §4.1 customer authentication over REST, one describe per endpoint. */
import { PassThrough } from 'node:stream';
import jwt from 'jsonwebtoken';
import { passCooldown, registerCustomer, uniquePhone } from './helpers/auth';
import { startTestServer, TestServer, TEST_CODE, TEST_PHONE } from './helpers/server';
import { useTestServer } from './helpers/setup';

let server: TestServer;

useTestServer((s) => {
  server = s;
});

const sql = (query: string, params: unknown[] = []) => server.db.orm.em.fork().execute(query, params);

const sendOtp = (phone_number: unknown, headers?: Record<string, string>) =>
  server.http.post('/v1/auth/customer/send-otp', { phone_number }, { headers });
const verifyOtp = (body: Record<string, unknown>) => server.http.post('/v1/auth/customer/verify-otp', body);

describe('POST /v1/auth/customer/send-otp', () => {
  it('answers 202 with a message and sends the code through the WhatsApp authentication template', async () => {
    const phone = uniquePhone();
    const res = await sendOtp(phone);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      success: true,
      message: 'Verification code sent.',
      data: { phone_number: phone, expires_in: 300, resend_in: 60 },
    });
    expect(server.whatsapp.messages).toHaveLength(1);
    const [message] = server.whatsapp.messages;
    expect(message.path).toBe('/v21.0/1234567890/messages');
    expect(message.authorization).toBe('Bearer test-access-token');
    expect(message.body).toMatchObject({
      messaging_product: 'whatsapp',
      to: phone.slice(1),
      type: 'template',
      template: { name: 'otp_code', language: { code: 'en_US' } },
    });
    const code = server.whatsapp.lastCodeFor(phone);
    expect(code).toMatch(/^\d{6}$/);
    expect(message.body.template.components[1]).toEqual({
      type: 'button',
      sub_type: 'url',
      index: '0',
      parameters: [{ type: 'text', text: code }],
    });
  });

  it('stores only an HMAC of the code, valid for 5 minutes', async () => {
    const phone = uniquePhone();
    await sendOtp(phone);
    const code = server.whatsapp.lastCodeFor(phone);
    const [row] = await sql(`select code_hash, extract(epoch from expires_at - created_at) as ttl from otp_codes where phone_number = ?`, [
      phone,
    ]);
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.code_hash).not.toContain(code);
    expect(Number(row.ttl)).toBe(300);
  });

  it('normalises the phone number to E.164', async () => {
    const res = await sendOtp('+1 (415) 555-2671');
    expect(res.status).toBe(202);
    expect(res.body.data.phone_number).toBe('+14155552671');
  });

  it('sends no message to a configured test number', async () => {
    const res = await sendOtp(TEST_PHONE);
    expect(res.status).toBe(202);
    expect(server.whatsapp.messages).toHaveLength(0);
  });

  it('answers 422 with errors when phone_number is missing, not a string or not a phone number', async () => {
    const missing = await server.http.post('/v1/auth/customer/send-otp', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ phone_number: ['The phone_number field is required.'] });

    const notString = await sendOtp(212600000001);
    expect(notString.status).toBe(422);
    expect(notString.body.errors.phone_number).toEqual(['The phone_number must be a string.']);

    const invalid = await sendOtp('12345');
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual({ phone_number: ['The phone number is not a valid phone number.'] });
    expect(server.whatsapp.messages).toHaveLength(0);
  });

  it('answers 429 with Retry-After when a code is requested again within 60 seconds', async () => {
    const phone = uniquePhone();
    expect((await sendOtp(phone)).status).toBe(202);
    const again = await sendOtp(phone);
    expect(again.status).toBe(429);
    expect(again.body).toEqual({ message: 'Please wait before requesting another code.' });
    const retryAfter = Number(again.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(server.whatsapp.messages).toHaveLength(1);
  });

  it('caps codes per phone per hour (5) and answers 429 with the wait until the oldest leaves the window', async () => {
    const phone = uniquePhone();
    for (let i = 0; i < 5; i++) {
      expect((await sendOtp(phone)).status).toBe(202);
      await passCooldown(server);
    }
    const capped = await sendOtp(phone);
    expect(capped.status).toBe(429);
    expect(capped.body.message).toBe('Too many verification codes requested. Try again later.');
    const retryAfter = Number(capped.headers.get('retry-after'));
    // The oldest send was moved 5 × 2 minutes back: it leaves the hour window in 50 minutes.
    expect(retryAfter).toBeGreaterThanOrEqual(2990);
    expect(retryAfter).toBeLessThanOrEqual(3000);
  });

  it('a resend replaces the code: the earlier one stops working', async () => {
    const phone = uniquePhone();
    await sendOtp(phone);
    const first = server.whatsapp.lastCodeFor(phone);
    await passCooldown(server);
    await sendOtp(phone);
    const second = server.whatsapp.lastCodeFor(phone);
    if (first !== second) {
      expect((await verifyOtp({ phone_number: phone, verification_code: first })).status).toBe(400);
    }
    expect((await verifyOtp({ phone_number: phone, verification_code: second })).status).toBe(200);
  });

  it('answers 500 when the provider fails, leaving no usable code and no cooldown behind', async () => {
    const phone = uniquePhone();
    server.whatsapp.failNext(500);
    const failed = await sendOtp(phone);
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ message: 'The verification code could not be sent. Please try again later.' });
    expect(await sql(`select * from otp_codes where phone_number = ?`, [phone])).toHaveLength(0);
    expect(await sql(`select * from otp_sends where phone_number = ?`, [phone])).toHaveLength(0);

    const retried = await sendOtp(phone);
    expect(retried.status).toBe(202);
  });
});

describe('POST /v1/auth/customer/send-otp — a WhatsApp that does not finish answering', () => {
  const TIMEOUT_MS = 400;
  let slow: TestServer;
  const records: { msg?: string; phoneNumber?: string; err?: { message?: string } }[] = [];
  beforeAll(async () => {
    const logs = new PassThrough();
    logs.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) records.push(JSON.parse(line));
    });
    slow = await startTestServer({ WHATSAPP_TIMEOUT_MS: String(TIMEOUT_MS) }, undefined, { logs });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it.each(['never answers', 'answers a byte at a time without end'])(
    'when it %s: the documented 500 within WHATSAPP_TIMEOUT_MS, no code and no cooldown left behind',
    async (how) => {
      const phone = uniquePhone();
      if (how === 'never answers') slow.whatsapp.holdNext();
      else slow.whatsapp.trickleNext();
      const began = Date.now();
      const failed = await slow.http.post('/v1/auth/customer/send-otp', { phone_number: phone });
      const took = Date.now() - began;
      expect(slow.whatsapp.unanswered).toBe(1); // the request reached WhatsApp
      expect(failed.status).toBe(500);
      expect(failed.body).toEqual({ message: 'The verification code could not be sent. Please try again later.' });
      expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS);
      expect(took).toBeLessThan(TIMEOUT_MS + 2000); // the deadline and send-otp's own two statements
      // The log says why, without the code.
      const logged = records.find((r) => r.msg === 'sending the one-time code failed' && r.phoneNumber === phone);
      expect(logged?.err?.message).toMatch(new RegExp(`^no (full )?answer within ${TIMEOUT_MS} ms$`));
      expect(await slow.db.orm.em.fork().execute(`select * from otp_codes where phone_number = ?`, [phone])).toHaveLength(0);
      expect(await slow.db.orm.em.fork().execute(`select * from otp_sends where phone_number = ?`, [phone])).toHaveLength(0);

      const retried = await slow.http.post('/v1/auth/customer/send-otp', { phone_number: phone });
      expect(retried.status).toBe(202);
      expect(slow.whatsapp.lastCodeFor(phone)).toMatch(/^\d{6}$/);
      slow.whatsapp.reset();
    },
  );
});

describe('POST /v1/auth/customer/send-otp — limits per client IP', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ OTP_MAX_PER_IP_PER_HOUR: '3', OTP_MAX_PER_IP_PER_DAY: '10', TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('answers 429 once one address asked for 3 codes in an hour, whatever the phone', async () => {
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    for (let i = 0; i < 3; i++) {
      const res = await limited.http.post('/v1/auth/customer/send-otp', { phone_number: uniquePhone() }, { headers: from('203.0.113.7') });
      expect(res.status).toBe(202);
    }
    const capped = await limited.http.post('/v1/auth/customer/send-otp', { phone_number: uniquePhone() }, { headers: from('203.0.113.7') });
    expect(capped.status).toBe(429);
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await limited.http.post('/v1/auth/customer/send-otp', { phone_number: uniquePhone() }, { headers: from('203.0.113.8') });
    expect(other.status).toBe(202);
  });
});

describe('POST /v1/auth/customer/verify-otp', () => {
  it('answers 200 for a new phone, saying the user does not exist yet', async () => {
    await sendOtp(TEST_PHONE);
    const res = await verifyOtp({ phone_number: TEST_PHONE, verification_code: TEST_CODE });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Phone number verified. Complete your profile to finish signing up.',
      data: {
        user_exists: false,
        phone_number: TEST_PHONE,
        access_token: null,
        token_type: null,
        expires_in: null,
        user: null,
        registration_token: expect.stringMatching(/^[\w-]{43}$/),
        registration_expires_in: 900,
      },
    });
  });

  it('answers 200 with a token and the user for an existing user, and remembers the device', async () => {
    const { user } = await registerCustomer(server);
    await passCooldown(server);
    await sendOtp(user.phone_number);
    const code = server.whatsapp.lastCodeFor(user.phone_number);
    const res = await verifyOtp({
      phone_number: user.phone_number,
      verification_code: code,
      device_id: 'pixel-8',
      push_token: 'fcm-token-1',
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Authentication successful.');
    expect(res.body.data).toMatchObject({ user_exists: true, phone_number: user.phone_number, token_type: 'Bearer', expires_in: 2592000 });
    expect(res.body.data.user).toEqual(user);
    expect(res.body.data).toMatchObject({ registration_token: null, registration_expires_in: null });
    const me = await server.http.get('/v1/auth/customer/me', { token: res.body.data.access_token });
    expect(me.body.data.id).toBe(user.id);
    expect(await sql(`select device_id, push_token from user_devices where user_id = ?`, [user.id])).toEqual([
      { device_id: 'pixel-8', push_token: 'fcm-token-1' },
    ]);
  });

  it('answers 400 for a wrong code, an expired code, a phone without a code, and a code used twice', async () => {
    const phone = uniquePhone();
    await sendOtp(phone);
    const code = server.whatsapp.lastCodeFor(phone);
    const wrong = code === '000000' ? '111111' : '000000';
    const bad = await verifyOtp({ phone_number: phone, verification_code: wrong });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'The verification code is invalid or has expired.' });

    expect((await verifyOtp({ phone_number: uniquePhone(), verification_code: '123456' })).status).toBe(400);

    expect((await verifyOtp({ phone_number: phone, verification_code: code })).status).toBe(200);
    expect((await verifyOtp({ phone_number: phone, verification_code: code })).status).toBe(400);

    await passCooldown(server);
    await sendOtp(phone);
    const fresh = server.whatsapp.lastCodeFor(phone);
    await sql(`update otp_codes set expires_at = now() - interval '1 second' where phone_number = ?`, [phone]);
    expect((await verifyOtp({ phone_number: phone, verification_code: fresh })).status).toBe(400);
  });

  it('answers 422 naming each missing field', async () => {
    const res = await verifyOtp({});
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      phone_number: ['The phone_number field is required.'],
      verification_code: ['The verification_code field is required.'],
    });
  });

  it('burns the code after 5 wrong attempts and answers 429, even for the right code afterwards', async () => {
    const phone = uniquePhone();
    await sendOtp(phone);
    const code = server.whatsapp.lastCodeFor(phone);
    const wrong = code === '000000' ? '111111' : '000000';
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await verifyOtp({ phone_number: phone, verification_code: wrong })).status);
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const right = await verifyOtp({ phone_number: phone, verification_code: code });
    expect(right.status).toBe(429);
    expect(right.body).toEqual({ message: 'Too many attempts. Request a new verification code.' });
  });

  it('evaluates at most 5 of 50 concurrent guesses', async () => {
    const phone = uniquePhone();
    await sendOtp(phone);
    const code = server.whatsapp.lastCodeFor(phone);
    const guesses = Array.from({ length: 50 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    const answers = await Promise.all(guesses.map((g) => verifyOtp({ phone_number: phone, verification_code: g })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(46);
    const [row] = await sql(`select attempts from otp_codes where phone_number = ?`, [phone]);
    expect(row.attempts).toBe(5);
  });
});

describe('POST /v1/auth/customer/verify-otp — wrong codes per client IP', () => {
  const env = { TRUST_PROXY: 'true', OTP_FAILURES_PER_IP_PER_15_MINUTES: '20' };
  let limited: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    limited = await startTestServer(env);
    second = await startTestServer(env, limited.db); // another instance on the same database
  });
  afterAll(async () => {
    await second?.close();
    await limited?.close();
  });

  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const send = (target: TestServer, phone: string, ip: string) =>
    target.http.post('/v1/auth/customer/send-otp', { phone_number: phone }, { headers: from(ip) });
  const verify = (target: TestServer, phone: string, code: string, ip: string) =>
    target.http.post('/v1/auth/customer/verify-otp', { phone_number: phone, verification_code: code }, { headers: from(ip) });
  const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');
  /** Each owner asks for a code from their own address; the codes they received. */
  const codesFor = async (phones: string[]) => {
    for (const [i, phone] of phones.entries()) expect((await send(limited, phone, `198.51.100.${i + 1}`)).status).toBe(202);
    return phones.map((phone) => limited.whatsapp.lastCodeFor(phone));
  };
  const throttled = { message: 'Too many wrong verification codes from this address. Try again later.' };

  it("the probe: 100 wrong codes over 20 phones from one address; past 20 every guess is 429, touching no phone's code", async () => {
    const phones = Array.from({ length: 20 }, () => uniquePhone());
    const codes = await codesFor(phones);
    const answers = [];
    for (const [i, phone] of phones.entries()) {
      for (let n = 0; n < 5; n++) answers.push(await verify(limited, phone, wrongFor(codes[i]), '203.0.113.66'));
    }
    expect(answers.slice(0, 20).map((a) => a.status)).toEqual(Array(4).fill([400, 400, 400, 400, 429]).flat());
    for (const refused of answers.slice(20)) {
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(throttled);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(900);
    }
    // Even the right code is refused to that address now, and costs the phone nothing.
    expect((await verify(limited, phones[19], codes[19], '203.0.113.66')).status).toBe(429);
    const attempts = await limited.db.orm.em
      .fork()
      .execute<{ attempts: number }[]>(`select attempts from otp_codes where phone_number in (?) order by attempts desc`, [phones]);
    expect(attempts.map((r) => r.attempts)).toEqual([...Array(4).fill(5), ...Array(16).fill(0)]);
    // The other 16 owners, each from their own address, sign in with the codes they received.
    for (let i = 4; i < 20; i++) expect((await verify(limited, phones[i], codes[i], `198.51.100.${i + 1}`)).status).toBe(200);
  });

  it('another address is not affected, and right codes do not count (one shared network, many sign-ins)', async () => {
    const phones = Array.from({ length: 25 }, () => uniquePhone());
    const codes = await codesFor(phones);
    for (let i = 0; i < 20; i++) await verify(limited, phones[i % 4], wrongFor(codes[i % 4]), '203.0.113.67');
    expect((await verify(limited, phones[4], wrongFor(codes[4]), '203.0.113.67')).status).toBe(429);
    // Another address: its own wrong code is a plain 400; 20 owners on one office network sign in.
    expect((await verify(limited, phones[4], wrongFor(codes[4]), '192.0.2.10')).status).toBe(400);
    for (let i = 5; i < 25; i++) expect((await verify(limited, phones[i], codes[i], '192.0.2.10')).status).toBe(200);
  });

  it("the owner of a code a stranger burned asks for a fresh one and signs in with it, from the owner's address", async () => {
    const phone = uniquePhone();
    const [code] = await codesFor([phone]);
    for (let n = 0; n < 5; n++) await verify(limited, phone, wrongFor(code), '203.0.113.68');
    const burned = await verify(limited, phone, code, '198.51.100.1');
    expect(burned.status).toBe(429);
    expect(burned.body).toEqual({ message: 'Too many attempts. Request a new verification code.' });
    await passCooldown(limited);
    expect((await send(limited, phone, '198.51.100.1')).status).toBe(202);
    const fresh = limited.whatsapp.lastCodeFor(phone);
    // One wrong try of the owner's own (a typo) is still one of five on the fresh code.
    expect((await verify(limited, phone, wrongFor(fresh), '198.51.100.1')).status).toBe(400);
    const signedIn = await verify(limited, phone, fresh, '198.51.100.1');
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.registration_token).toEqual(expect.any(String));
  });

  it('evaluates exactly 20 of 50 concurrent wrong guesses from one address', async () => {
    const guesses = Array.from({ length: 50 }, () => verify(limited, uniquePhone(), '123456', '203.0.113.70'));
    const statuses = (await Promise.all(guesses)).map((a) => a.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  });

  it('counts one address across instances sharing the database', async () => {
    const phones = Array.from({ length: 10 }, () => uniquePhone());
    const codes = await codesFor(phones);
    const statuses = [];
    for (let i = 0; i < 22; i++) {
      const target = i % 2 ? second : limited;
      statuses.push((await verify(target, phones[i % 10], wrongFor(codes[i % 10]), '203.0.113.69')).status);
    }
    expect(statuses).toEqual([...Array(20).fill(400), 429, 429]);
    expect((await verify(second, phones[0], wrongFor(codes[0]), '203.0.113.69')).body).toEqual(throttled);
  });
});

describe('POST /v1/auth/customer/complete-profile', () => {
  const complete = (body: Record<string, unknown>) => server.http.post('/v1/auth/customer/complete-profile', body);
  /** send-otp + verify-otp for a new phone: the registration token complete-profile needs. */
  const verified = async (phone = TEST_PHONE): Promise<string> => {
    await sendOtp(phone);
    const code = phone === TEST_PHONE ? TEST_CODE : server.whatsapp.lastCodeFor(phone);
    return (await verifyOtp({ phone_number: phone, verification_code: code })).body.data.registration_token;
  };

  it('answers 201 with a token and the new user once the phone is verified', async () => {
    const registration_token = await verified();
    const res = await complete({
      phone_number: TEST_PHONE,
      first_name: ' Youssef ',
      last_name: 'Alaoui',
      device_id: 'iphone-15',
      push_token: 'apns-1',
      registration_token,
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBe('Registration successful.');
    expect(res.body.data).toMatchObject({ user_exists: true, phone_number: TEST_PHONE, token_type: 'Bearer', expires_in: 2592000 });
    expect(res.body.data.user).toEqual({
      id: expect.any(Number),
      phone_number: TEST_PHONE,
      first_name: 'Youssef',
      last_name: 'Alaoui',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
    const me = await server.http.get('/v1/auth/customer/me', { token: res.body.data.access_token });
    expect(me.status).toBe(200);
    expect(await sql(`select device_id, push_token from user_devices`)).toEqual([{ device_id: 'iphone-15', push_token: 'apns-1' }]);
  });

  it('answers 403 when the phone was not verified, or its verification expired', async () => {
    const res = await complete({ phone_number: uniquePhone(), first_name: 'A', last_name: 'B' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'The phone number has not been verified.' });

    const registration_token = await verified();
    await sql(`update phone_verifications set expires_at = now() - interval '1 second'`);
    expect((await complete({ phone_number: TEST_PHONE, first_name: 'A', last_name: 'B', registration_token })).status).toBe(403);
    expect(await sql(`select * from users`)).toHaveLength(0);
  });

  it('answers 409 when the user already exists (a double-submitted form)', async () => {
    const registration_token = await verified();
    expect((await complete({ phone_number: TEST_PHONE, first_name: 'A', last_name: 'B', registration_token })).status).toBe(201);
    const again = await complete({ phone_number: TEST_PHONE, first_name: 'C', last_name: 'D', registration_token });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'A user with this phone number already exists.' });
    expect(await sql(`select first_name from users`)).toEqual([{ first_name: 'A' }]);
  });

  it('refuses a takeover: after the victim verified, a caller without the registration token gets 403', async () => {
    const victim = uniquePhone();
    const registration_token = await verified(victim);
    // The attacker knows the number, not the token: no token, a made-up one, another phone's.
    const attempts = [
      await complete({ phone_number: victim, first_name: 'Mallory', last_name: 'X' }),
      await complete({ phone_number: victim, first_name: 'Mallory', last_name: 'X', registration_token: 'A'.repeat(43) }),
      await complete({ phone_number: victim, first_name: 'Mallory', last_name: 'X', registration_token: await verified(uniquePhone()) }),
    ];
    expect(attempts.map((a) => [a.status, a.body])).toEqual(Array(3).fill([403, { message: 'The phone number has not been verified.' }]));
    expect(await sql(`select * from users where phone_number = ?`, [victim])).toHaveLength(0);
    // The victim still registers with their token.
    const mine = await complete({ phone_number: victim, first_name: 'Amina', last_name: 'Haddad', registration_token });
    expect(mine.status).toBe(201);
    expect(mine.body.data.user.first_name).toBe('Amina');
  });

  it('spends the token once: concurrent uses register one user; a new verification replaces the token', async () => {
    const phone = uniquePhone();
    const first = await verified(phone);
    await passCooldown(server);
    const second = await verified(phone);
    expect(second).not.toBe(first);
    expect((await complete({ phone_number: phone, first_name: 'A', last_name: 'B', registration_token: first })).status).toBe(403);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => complete({ phone_number: phone, first_name: 'A', last_name: 'B', registration_token: second })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await sql(`select count(*)::int as n from users where phone_number = ?`, [phone])).toEqual([{ n: 1 }]);
    expect(
      await sql(`select token_hash <> ? as hashed, used_at is not null as used from phone_verifications where phone_number = ?`, [
        second,
        phone,
      ]),
    ).toEqual([{ hashed: true, used: true }]);
  });

  it('answers 422 naming missing or blank names', async () => {
    const res = await complete({ phone_number: TEST_PHONE, first_name: '  ' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      first_name: ['The first_name field is required.'],
      last_name: ['The last_name field is required.'],
    });
  });
});

describe('GET /v1/auth/customer/me', () => {
  it('answers 200 with the signed-in user', async () => {
    const { token, user } = await registerCustomer(server);
    const res = await server.http.get('/v1/auth/customer/me', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: user });
  });

  describe('answers 401 with a message for a token that is', () => {
    const secret = 'test-secret-that-is-long-enough-for-hs256-0123456789';
    const claims = { iss: 'delivery-platform', aud: 'delivery-platform-clients', jti: '0b6f7c5e-4a57-4a55-9d7b-6e1f0a1b2c3d' };
    const cases: [string, () => Promise<string>][] = [
      ['missing', async () => ''],
      ['not a JWT', async () => 'not-a-token'],
      ['expired', async () => jwt.sign({ ...claims, sub: '1', exp: Math.floor(Date.now() / 1000) - 10 }, secret)],
      [
        'signed with another secret',
        async () => jwt.sign({ ...claims, sub: '1' }, 'another-secret-another-secret-another-secret', { expiresIn: 60 }),
      ],
      ['unsigned (alg none)', async () => jwt.sign({ ...claims, sub: '1' }, '', { algorithm: 'none', expiresIn: 60 })],
      ['for another audience', async () => jwt.sign({ ...claims, aud: 'someone-else', sub: '1' }, secret, { expiresIn: 60 })],
      [
        'altered after signing',
        async () => {
          const { token } = await registerCustomer(server);
          const [header, payload, signature] = token.split('.');
          const claimsOf = JSON.parse(Buffer.from(payload, 'base64url').toString());
          const forged = Buffer.from(JSON.stringify({ ...claimsOf, sub: String(Number(claimsOf.sub) + 1) })).toString('base64url');
          return `${header}.${forged}.${signature}`;
        },
      ],
    ];
    it.each(cases)('%s', async (_name, makeToken) => {
      const token = await makeToken();
      const res = await server.http.get('/v1/auth/customer/me', { token: token || undefined });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: expect.any(String) });
    });
  });
});

describe('POST /v1/auth/customer/logout', () => {
  it('answers 200 and revokes exactly that token', async () => {
    const { token, user } = await registerCustomer(server);
    await passCooldown(server);
    await sendOtp(user.phone_number);
    const second = await verifyOtp({ phone_number: user.phone_number, verification_code: server.whatsapp.lastCodeFor(user.phone_number) });
    const otherToken = second.body.data.access_token;

    const res = await server.http.post('/v1/auth/customer/logout', undefined, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Logged out.' });

    const after = await server.http.get('/v1/auth/customer/me', { token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ message: 'The token has been revoked.' });
    expect((await server.http.get('/v1/auth/customer/me', { token: otherToken })).status).toBe(200);
    expect((await server.http.post('/v1/auth/customer/logout', undefined, { token })).status).toBe(401);
  });

  it('answers 401 without a token', async () => {
    const res = await server.http.post('/v1/auth/customer/logout');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthenticated.' });
  });
});

describe('expired sign-in records', () => {
  it('are purged, while live ones stay', async () => {
    const { purgeExpiredAuthRecords } = await import('../src/modules/auth/auth.cleanup');
    const live = uniquePhone();
    const stale = uniquePhone();
    await sendOtp(live);
    await sendOtp(stale);
    await sql(`update otp_codes set expires_at = now() - interval '1 minute' where phone_number = ?`, [stale]);
    await sql(`update otp_sends set created_at = now() - interval '25 hours' where phone_number = ?`, [stale]);
    await sql(
      `insert into revoked_tokens (jti, expires_at) values (gen_random_uuid(), now() - interval '1 minute'), (gen_random_uuid(), now() + interval '1 day')`,
    );

    expect(await purgeExpiredAuthRecords(server.db.orm.em.fork())).toBe(3);
    expect(await sql(`select phone_number from otp_codes`)).toEqual([{ phone_number: live }]);
    expect(await sql(`select phone_number from otp_sends`)).toEqual([{ phone_number: live }]);
    expect(await sql(`select count(*)::int as n from revoked_tokens`)).toEqual([{ n: 1 }]);
  });
});
