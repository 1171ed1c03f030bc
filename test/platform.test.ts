/** What every request meets before any route: probes, 404s, body parsing and request ids. */
import { startTestServer, TestServer } from './helpers/server';
import { registerCustomer } from './helpers/auth';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('GET /healthz', () => {
  it('answers 200 {status: "ok"}', async () => {
    const res = await server.http.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 'ok' });
  });
});

describe('GET /readyz', () => {
  it('answers 200 {status: "ready"} while the database answers', async () => {
    const res = await server.http.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });
});

describe('unknown paths', () => {
  it('answer 404 with a JSON message naming the method and path', async () => {
    const res = await server.http.get('/nope');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ message: 'The route GET /nope could not be found.' });
  });

  it('name other methods too, and a known path with the wrong method', async () => {
    const res = await server.http.delete('/v1/auth/customer/send-otp');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'The route DELETE /v1/auth/customer/send-otp could not be found.' });
  });

  it('do not reveal the framework', async () => {
    const res = await server.http.get('/nope');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });
});

describe('malformed JSON body', () => {
  it('answers 400 with a message, before any route runs', async () => {
    const res = await server.http.post('/v1/auth/customer/send-otp', undefined, {
      raw: '{"phone_number":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'The request body is not valid JSON.' });
    expect(server.whatsapp.messages).toHaveLength(0);
  });

  it('answers 400 for an array where the fields are expected (strict rows too), and changes nothing', async () => {
    const { token } = await registerCustomer(server);
    server.whatsapp.reset();
    for (const [method, path] of [
      ['POST', '/v1/auth/customer/send-otp'],
      ['PUT', '/api/v1/customer/notification-preferences'],
    ]) {
      const res = await server.http.request(method, path, undefined, { token, raw: '[{"phone_number": "+15550000001"}, 1]' });
      expect([res.status, res.body]).toEqual([400, { message: 'The request body must be a JSON object.' }]);
    }
    expect(server.whatsapp.messages).toHaveLength(0);
    expect(await server.db.orm.em.fork().execute('select user_id from notification_preferences')).toEqual([]);
  });

  it('answers 415 for a body sent as another type where a row reads its fields (it was read as none sent: 200, nothing changed)', async () => {
    const { token } = await registerCustomer(server);
    const other = await registerCustomer(server);
    server.whatsapp.reset();
    for (const [type, raw] of [
      ['text/plain', '{"channels": {"push": false}}'],
      ['application/x-www-form-urlencoded', 'channels[push]=false'],
    ]) {
      const res = await server.http.request('PUT', '/api/v1/customer/notification-preferences', undefined, {
        token,
        raw,
        headers: { 'content-type': type },
      });
      expect([res.status, res.body]).toEqual([415, { message: 'The request body must be JSON (Content-Type: application/json).' }]);
    }
    expect(await server.db.orm.em.fork().execute('select user_id from notification_preferences')).toEqual([]);
    // A row that reads no body keeps ignoring one, whatever its type; no body at all is no body.
    const plain = { headers: { 'content-type': 'text/plain' } };
    expect((await server.http.request('POST', '/v1/auth/customer/logout', undefined, { token, raw: 'bye', ...plain })).status).toBe(200);
    const none = await server.http.request('PUT', '/api/v1/customer/notification-preferences', undefined, { token: other.token });
    expect(none.status).toBe(200);
  });
});

describe('oversize body', () => {
  it('answers 413 with a message for a body over 100kb', async () => {
    const raw = JSON.stringify({ phone_number: '+14155550100', padding: 'x'.repeat(101 * 1024) });
    const res = await server.http.post('/v1/auth/customer/send-otp', undefined, { raw });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'The request body is larger than 100kb.' });
    expect(server.whatsapp.messages).toHaveLength(0);
  });

  it('accepts a body just under the limit (the limit is the cause, not the route)', async () => {
    const raw = JSON.stringify({ phone_number: 'not-a-phone', padding: 'x'.repeat(90 * 1024) });
    const res = await server.http.post('/v1/auth/customer/send-otp', undefined, { raw });
    expect(res.status).toBe(422);
  });
});

describe('request ids', () => {
  it('every answer carries a generated X-Request-Id, different each time', async () => {
    const first = await server.http.get('/nope');
    const second = await server.http.get('/v1/auth/customer/send-otp-nope');
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    expect(ids[0]).toMatch(UUID);
    expect(ids[1]).toMatch(UUID);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('REST and GraphQL answers carry it too', async () => {
    const rest = await server.http.post('/v1/auth/customer/send-otp', {});
    expect(rest.status).toBe(422);
    expect(rest.headers.get('x-request-id')).toMatch(UUID);
    const graphql = await server.http.graphql('{ __typename }');
    expect(graphql.body).toEqual({ data: { __typename: 'Query' } });
    expect(graphql.headers.get('x-request-id')).toMatch(UUID);
  });

  it('echoes a sane incoming x-request-id', async () => {
    for (const id of ['req-123', 'a1B2.c3_d4-E5', 'x'.repeat(64)]) {
      const res = await server.http.get('/nope', { headers: { 'x-request-id': id } });
      expect(res.headers.get('x-request-id')).toBe(id);
    }
  });

  it('replaces an unsafe incoming x-request-id with a generated one', async () => {
    for (const id of ['has spaces', 'x'.repeat(65), 'quote"or;semicolon', '{"level":60}', 'back\\slash']) {
      const res = await server.http.get('/nope', { headers: { 'x-request-id': id } });
      const answered = res.headers.get('x-request-id');
      expect(answered).not.toBe(id);
      expect(answered).toMatch(UUID);
    }
  });
});
