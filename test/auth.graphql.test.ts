/** Spec §4.1 customer sign-in over GraphQL (POST /graphql) and websocket authentication (graphql-ws). */
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { passCooldown, registerCustomer, uniquePhone } from './helpers/auth';
import { TestServer, TEST_CODE, TEST_PHONE } from './helpers/server';
import { useTestServer } from './helpers/setup';

let server: TestServer;

useTestServer((s) => {
  server = s;
});

const sql = (query: string, params: unknown[] = []) => server.db.orm.em.fork().execute(query, params);

const SESSION_FIELDS = `message session { userExists phoneNumber accessToken tokenType expiresIn user { id phoneNumber firstName lastName createdAt } }`;
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

const sendOtp = (phoneNumber: string) =>
  server.http.graphql(
    `mutation($input: SendOtpInput!) { sendOtp(input: $input) { message challenge { phoneNumber expiresIn resendIn } } }`,
    { input: { phoneNumber } },
  );
const verifyOtp = (input: Record<string, unknown>) =>
  server.http.graphql(`mutation($input: VerifyOtpInput!) { verifyOtp(input: $input) { ${SESSION_FIELDS} } }`, { input });
const completeProfile = (input: Record<string, unknown>) =>
  server.http.graphql(`mutation($input: CompleteProfileInput!) { completeProfile(input: $input) { ${SESSION_FIELDS} } }`, { input });
/** verifyOtp for a new phone, answering the registration token completeProfile needs. */
const registrationToken = async (phoneNumber: string, verificationCode: string): Promise<string> =>
  (
    await server.http.graphql(`mutation($input: VerifyOtpInput!) { verifyOtp(input: $input) { session { registrationToken } } }`, {
      input: { phoneNumber, verificationCode },
    })
  ).body.data.verifyOtp.session.registrationToken;
const me = (token?: string) => server.http.graphql(`query { me { id phoneNumber firstName lastName createdAt } }`, undefined, { token });

/** The REST (snake_case) user as GraphQL answers it. */
const asGraphQLUser = (user: { id: number; phone_number: string; first_name: string; last_name: string; created_at: string }) => ({
  id: user.id,
  phoneNumber: user.phone_number,
  firstName: user.first_name,
  lastName: user.last_name,
  createdAt: new Date(user.created_at).toISOString(),
});

describe('mutation sendOtp', () => {
  it('answers the challenge and sends the code through WhatsApp', async () => {
    const phone = uniquePhone();
    const res = await sendOtp(phone);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { sendOtp: { message: 'Verification code sent.', challenge: { phoneNumber: phone, expiresIn: 300, resendIn: 60 } } },
    });
    expect(server.whatsapp.messages).toHaveLength(1);
    expect(server.whatsapp.messages[0].body.to).toBe(phone.slice(1));
    expect(server.whatsapp.lastCodeFor(phone)).toMatch(/^\d{6}$/);
  });

  it('normalises the phone number and sends nothing to a configured test number', async () => {
    const res = await sendOtp('+1 (415) 555-2671');
    expect(res.body.data.sendOtp.challenge.phoneNumber).toBe('+14155552671');
    expect(server.whatsapp.messages).toHaveLength(1);

    const test = await sendOtp(TEST_PHONE);
    expect(test.body.errors).toBeUndefined();
    expect(test.body.data.sendOtp.challenge.phoneNumber).toBe(TEST_PHONE);
    expect(server.whatsapp.messages).toHaveLength(1);
  });

  it('refuses an invalid phone with VALIDATION naming phoneNumber, and sends nothing', async () => {
    const res = await sendOtp('12345');
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({
      message: 'The given data was invalid.',
      path: ['sendOtp'],
      extensions: { code: 'VALIDATION', fields: { phoneNumber: ['The phone number is not a valid phone number.'] } },
    });
    expect(server.whatsapp.messages).toHaveLength(0);
  });

  it('refuses a resend within the cooldown with RATE_LIMITED and retryAfter seconds', async () => {
    const phone = uniquePhone();
    expect((await sendOtp(phone)).body.errors).toBeUndefined();
    const again = await sendOtp(phone);
    expect(again.status).toBe(200);
    expect(again.body.data).toBeNull();
    expect(again.body.errors[0].message).toBe('Please wait before requesting another code.');
    expect(again.body.errors[0].extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    const { retryAfter } = again.body.errors[0].extensions;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(server.whatsapp.messages).toHaveLength(1);
  });
});

describe('mutation verifyOtp', () => {
  it('proves a new phone: userExists false and no token', async () => {
    await sendOtp(TEST_PHONE);
    const res = await verifyOtp({ phoneNumber: TEST_PHONE, verificationCode: TEST_CODE });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        verifyOtp: {
          message: 'Phone number verified. Complete your profile to finish signing up.',
          session: { userExists: false, phoneNumber: TEST_PHONE, accessToken: null, tokenType: null, expiresIn: null, user: null },
        },
      },
    });
    expect(await sql(`select phone_number from phone_verifications`)).toEqual([{ phone_number: TEST_PHONE }]);
  });

  it('refuses a wrong code with INVALID_CODE', async () => {
    const phone = uniquePhone();
    await sendOtp(phone);
    const code = server.whatsapp.lastCodeFor(phone);
    const res = await verifyOtp({ phoneNumber: phone, verificationCode: code === '000000' ? '111111' : '000000' });
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0]).toMatchObject({
      message: 'The verification code is invalid or has expired.',
      extensions: { code: 'INVALID_CODE' },
    });
    // The right code still works afterwards.
    expect((await verifyOtp({ phoneNumber: phone, verificationCode: code })).body.data.verifyOtp.session.phoneNumber).toBe(phone);
  });

  it('signs an existing user in with a token and the user', async () => {
    const { user } = await registerCustomer(server);
    await passCooldown(server);
    await sendOtp(user.phone_number);
    const code = server.whatsapp.lastCodeFor(user.phone_number);
    const res = await verifyOtp({ phoneNumber: user.phone_number, verificationCode: code, deviceId: 'pixel-9' });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.verifyOtp).toEqual({
      message: 'Authentication successful.',
      session: {
        userExists: true,
        phoneNumber: user.phone_number,
        accessToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        tokenType: 'Bearer',
        expiresIn: 2592000,
        user: asGraphQLUser(user),
      },
    });
    const signedIn = await me(res.body.data.verifyOtp.session.accessToken);
    expect(signedIn.body.data.me.id).toBe(user.id);
    expect(await sql(`select device_id from user_devices where user_id = ?`, [user.id])).toEqual([{ device_id: 'pixel-9' }]);
  });

  it('refuses a verificationCode longer than 16 characters with VALIDATION before any attempt counts', async () => {
    const phone = uniquePhone();
    await sendOtp(phone);
    const res = await verifyOtp({ phoneNumber: phone, verificationCode: '1'.repeat(17) });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions).toEqual({
      code: 'VALIDATION',
      fields: { verificationCode: ['verificationCode must be shorter than or equal to 16 characters'] },
    });
    expect(await sql(`select attempts from otp_codes where phone_number = ?`, [phone])).toEqual([{ attempts: 0 }]);
  });
});

describe('mutation completeProfile', () => {
  it('refuses a phone that was not verified with FORBIDDEN', async () => {
    const res = await completeProfile({ phoneNumber: uniquePhone(), firstName: 'A', lastName: 'B' });
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0]).toMatchObject({ message: 'The phone number has not been verified.', extensions: { code: 'FORBIDDEN' } });
    expect(await sql(`select * from users`)).toHaveLength(0);
  });

  it('refuses a verified phone without its registration token with FORBIDDEN (no takeover)', async () => {
    await sendOtp(TEST_PHONE);
    await verifyOtp({ phoneNumber: TEST_PHONE, verificationCode: TEST_CODE });
    const res = await completeProfile({ phoneNumber: TEST_PHONE, firstName: 'Mallory', lastName: 'X' });
    expect(res.body.errors[0]).toMatchObject({ message: 'The phone number has not been verified.', extensions: { code: 'FORBIDDEN' } });
    expect(await sql(`select * from users`)).toHaveLength(0);
  });

  it('registers a verified phone and answers a working token with the new user', async () => {
    await sendOtp(TEST_PHONE);
    const token = await registrationToken(TEST_PHONE, TEST_CODE);
    const res = await completeProfile({ phoneNumber: TEST_PHONE, firstName: ' Youssef ', lastName: 'Alaoui', registrationToken: token });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.completeProfile).toEqual({
      message: 'Registration successful.',
      session: {
        userExists: true,
        phoneNumber: TEST_PHONE,
        accessToken: expect.any(String),
        tokenType: 'Bearer',
        expiresIn: 2592000,
        user: {
          id: expect.any(Number),
          phoneNumber: TEST_PHONE,
          firstName: 'Youssef',
          lastName: 'Alaoui',
          createdAt: expect.stringMatching(ISO_INSTANT),
        },
      },
    });
    const { accessToken, user } = res.body.data.completeProfile.session;
    expect((await me(accessToken)).body.data.me).toEqual(user);
  });

  it('refuses a second registration of the phone with CONFLICT', async () => {
    await sendOtp(TEST_PHONE);
    const token = await registrationToken(TEST_PHONE, TEST_CODE);
    expect(
      (await completeProfile({ phoneNumber: TEST_PHONE, firstName: 'A', lastName: 'B', registrationToken: token })).body.errors,
    ).toBeUndefined();
    const again = await completeProfile({ phoneNumber: TEST_PHONE, firstName: 'C', lastName: 'D', registrationToken: token });
    expect(again.body.data).toBeNull();
    expect(again.body.errors[0]).toMatchObject({
      message: 'A user with this phone number already exists.',
      extensions: { code: 'CONFLICT' },
    });
    expect(await sql(`select first_name from users`)).toEqual([{ first_name: 'A' }]);
  });
});

describe('query me', () => {
  it('answers the signed-in user', async () => {
    const { token, user } = await registerCustomer(server);
    const res = await me(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { me: asGraphQLUser(user) } });
  });

  it('answers HTTP 200 with UNAUTHENTICATED in errors and null data without a token', async () => {
    const res = await me();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: null,
      errors: [{ message: 'Unauthenticated.', locations: [{ line: 1, column: 9 }], path: ['me'], extensions: { code: 'UNAUTHENTICATED' } }],
    });
  });

  it('answers UNAUTHENTICATED naming why for an invalid token', async () => {
    const res = await me('not-a-token');
    expect(res.status).toBe(200);
    expect(res.body.errors[0]).toMatchObject({ message: 'The token is invalid.', extensions: { code: 'UNAUTHENTICATED' } });
  });
});

describe('mutation logout', () => {
  it('revokes the token: query me then answers UNAUTHENTICATED, the token has been revoked', async () => {
    const { token, user } = await registerCustomer(server);
    expect((await me(token)).body.data.me.id).toBe(user.id);

    const res = await server.http.graphql(`mutation { logout { message } }`, undefined, { token });
    expect(res.body).toEqual({ data: { logout: { message: 'Logged out.' } } });

    const after = await me(token);
    expect(after.status).toBe(200);
    expect(after.body.data).toBeNull();
    expect(after.body.errors[0]).toMatchObject({ message: 'The token has been revoked.', extensions: { code: 'UNAUTHENTICATED' } });

    const twice = await server.http.graphql(`mutation { logout { message } }`, undefined, { token });
    expect(twice.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a caller without a token with UNAUTHENTICATED', async () => {
    const res = await server.http.graphql(`mutation { logout { message } }`);
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0]).toMatchObject({ message: 'Unauthenticated.', extensions: { code: 'UNAUTHENTICATED' } });
  });
});

/** Rejects when `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface Closed {
  code: number;
  reason: string;
}

interface Connection {
  client: Client;
  connected: Promise<void>;
  closed: Promise<Closed>;
  wasConnected(): boolean;
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

/** A real graphql-ws client that connects at once (lazy: false) and never retries. */
function connect(authorization?: string): Connection {
  let acknowledged = false;
  let onConnected!: () => void;
  let onClosed!: (closed: Closed) => void;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const closed = new Promise<Closed>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: server.wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: authorization === undefined ? {} : { authorization },
    retryAttempts: 0,
    lazy: false,
    // The refusal also surfaces here when not lazy; the close event is what the tests read.
    onNonLazyError: () => {},
    on: {
      connected: () => {
        acknowledged = true;
        onConnected();
      },
      closed: (event) => {
        const { code, reason } = event as Closed;
        onClosed({ code, reason });
      },
    },
  });
  clients.push(client);
  return { client, connected, closed, wasConnected: () => acknowledged };
}

/** Runs one operation over the socket and resolves with what the server refused it with. */
function refusal(client: Client, query: string): Promise<unknown> {
  return within(
    new Promise<unknown>((resolve, reject) => {
      client.subscribe(
        { query },
        {
          next: (result) => reject(new Error(`expected a refusal, got ${JSON.stringify(result)}`)),
          error: resolve,
          complete: () => reject(new Error('expected a refusal, the operation completed')),
        },
      );
    }),
    5000,
    'the refusal',
  );
}

describe('websocket /graphql (graphql-ws)', () => {
  it('acknowledges a connection carrying a valid token', async () => {
    const { token } = await registerCustomer(server);
    const connection = connect(`Bearer ${token}`);
    await within(connection.connected, 5000, 'connection_ack');
    expect(connection.wasConnected()).toBe(true);
    await connection.client.dispose();
    const closed = await within(connection.closed, 5000, 'the close');
    expect(closed.code).toBe(1000);
  });

  it('closes a connection without a token with 4401 and never acknowledges it', async () => {
    const connection = connect();
    const closed = await within(connection.closed, 5000, 'the close');
    expect(closed).toEqual({ code: 4401, reason: 'Unauthenticated.' });
    expect(connection.wasConnected()).toBe(false);
  });

  it('closes a connection with an invalid token with 4401 naming why', async () => {
    const connection = connect('Bearer not-a-token');
    expect(await within(connection.closed, 5000, 'the close')).toEqual({ code: 4401, reason: 'The token is invalid.' });
    expect(connection.wasConnected()).toBe(false);
  });

  it('closes a connection with a token revoked by logout with 4401', async () => {
    const { token } = await registerCustomer(server);
    const logout = await server.http.post('/v1/auth/customer/logout', undefined, { token });
    expect(logout.status).toBe(200);
    const connection = connect(`Bearer ${token}`);
    expect(await within(connection.closed, 5000, 'the close')).toEqual({ code: 4401, reason: 'The token has been revoked.' });
    expect(connection.wasConnected()).toBe(false);
  });

  it('refuses a query on an accepted socket with OPERATION_NOT_ALLOWED and keeps the socket open', async () => {
    const { token } = await registerCustomer(server);
    const connection = connect(`Bearer ${token}`);
    await within(connection.connected, 5000, 'connection_ack');
    const error = await refusal(connection.client, `query { me { id } }`);
    expect(error).toEqual([
      {
        message: 'Only subscriptions are served over the websocket; send queries and mutations to POST /graphql.',
        extensions: { code: 'OPERATION_NOT_ALLOWED' },
      },
    ]);
    // The refusal is per operation: the same socket still answers the next one.
    const mutation = await refusal(connection.client, `mutation { logout { message } }`);
    expect((mutation as { extensions: { code: string } }[])[0].extensions.code).toBe('OPERATION_NOT_ALLOWED');
    expect((await me(token)).body.data.me).not.toBeNull(); // the mutation did not run
  });
});

describe('query depth limit', () => {
  /** An introspection query `2 + ofTypes + 2` selection sets deep (__schema types fields type ofType...). */
  const introspection = (ofTypes: number) =>
    `query { __schema { types { fields { type { ${'ofType { '.repeat(ofTypes)}name${' }'.repeat(ofTypes)} } } } } }`;

  it('serves a document 12 levels deep', async () => {
    const res = await server.http.graphql(introspection(8));
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__schema.types.length).toBeGreaterThan(0);
  });

  it('refuses a document 13 levels deep with QUERY_TOO_DEEP', async () => {
    const res = await server.http.graphql(introspection(9));
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([
      {
        message: 'The query is 13 levels deep; at most 12 are allowed.',
        locations: [{ line: 1, column: 1 }],
        extensions: { code: 'QUERY_TOO_DEEP' },
      },
    ]);
  });

  it('counts fields inside fragments', async () => {
    const res = await server.http.graphql(
      `query { ...Root } fragment Root on Query { __schema { types { fields { type { ...Deep } } } } }
       fragment Deep on __Type { ${'ofType { '.repeat(9)}name${' }'.repeat(9)} }`,
    );
    expect(res.body.errors[0]).toMatchObject({
      message: 'The query is 13 levels deep; at most 12 are allowed.',
      extensions: { code: 'QUERY_TOO_DEEP' },
    });
  });

  it('is applied on the websocket too', async () => {
    const { token } = await registerCustomer(server);
    const connection = connect(`Bearer ${token}`);
    await within(connection.connected, 5000, 'connection_ack');
    const error = await refusal(connection.client, introspection(9));
    expect(error).toEqual([
      expect.objectContaining({ message: 'The query is 13 levels deep; at most 12 are allowed.', extensions: { code: 'QUERY_TOO_DEEP' } }),
    ]);
  });
});
