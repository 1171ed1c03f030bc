/**
 * REST reads are mounted ahead of the webhooks, pages, body parser and /graphql (src/app.ts
 * `readsFirst`): a GET without a body is answered there. The same request with a body takes
 * the full chain; both must answer alike, headers included, and neither may skip auth.
 */
import http from 'node:http';
import { registerCustomer } from './helpers/auth';
import { useTestServer } from './helpers/setup';
import { Factory } from './helpers/factories';
import { startTestServer, TestServer } from './helpers/server';

let server: TestServer;
let make: Factory;
useTestServer((s, f) => {
  server = s;
  make = f;
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request as sent (fetch refuses a GET with a body): `body` makes it take the full chain. */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${path}`,
      {
        method,
        headers:
          body === undefined
            ? headers
            : { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The answer without what differs between any two answers (the date, the connection). */
const comparable = ({ status, headers: { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...headers }, body }: Raw) => ({
  status,
  headers,
  body,
});

async function bothWays(url: string, method: string, path: string, headers: Record<string, string> = {}) {
  const first = await send(url, method, path, { 'x-request-id': 'reads-first-1', ...headers });
  const full = await send(url, method, path, { 'x-request-id': 'reads-first-1', ...headers }, '{}');
  return { first: comparable(first), full: comparable(full) };
}

describe('REST reads first', () => {
  it('answer exactly as through the full chain: status, security headers, X-Request-Id, body', async () => {
    const { store } = await make.storeWithProducts(2);
    await make.ad();
    const { token } = await registerCustomer(server);
    const cases: [string, string, Record<string, string>?][] = [
      ['GET', '/api/v1/global/ads'],
      ['GET', `/api/v1/store/products?store_id=${store.id}`],
      ['GET', `/api/v1/store/stores/${store.slug}`],
      ['GET', '/api/v1/store/products?store_id=abc'],
      ['GET', '/api/v1/store/stores/no-such-store'],
      ['HEAD', '/api/v1/global/ads'],
      // Signed-in reads: refused without a token, answered with one, the same both ways.
      ['GET', '/v1/auth/customer/me'],
      ['GET', '/v1/auth/customer/me', { authorization: 'Bearer not-a-token' }],
      ['GET', '/v1/auth/customer/me', { authorization: `Bearer ${token}` }],
      ['GET', '/api/v1/customer/addresses', { authorization: `Bearer ${token}` }],
    ];
    for (const [method, path, headers] of cases) {
      const { first, full } = await bothWays(server.url, method, path, headers);
      expect({ method, path, ...first }).toEqual({ method, path, ...full });
      expect(first.headers['x-request-id']).toBe('reads-first-1');
      expect(first.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await bothWays(server.url, 'GET', '/v1/auth/customer/me')).first.status).toBe(401);
    expect((await bothWays(server.url, 'GET', '/v1/auth/customer/me', { authorization: `Bearer ${token}` })).first.status).toBe(200);
  });

  it('keep CORS and X-Instance as the full chain sets them', async () => {
    const s = await startTestServer({ CORS_ORIGINS: 'https://dashboard.example.com', INSTANCE_NAME: 'api-7' }, server.db);
    try {
      for (const origin of ['https://dashboard.example.com', 'https://evil.example']) {
        const { first, full } = await bothWays(s.url, 'GET', '/api/v1/global/ads', { origin });
        expect(first).toEqual(full);
        expect(first.headers['x-instance']).toBe('api-7');
      }
    } finally {
      await s.close();
    }
  });

  it('leave other methods to the full table: OPTIONS lists every method of a path', async () => {
    const options = await send(server.url, 'OPTIONS', '/api/v1/store/categories', {});
    expect(options.headers.allow?.split(/,\s*/).sort()).toEqual(['GET', 'HEAD', 'POST']);
  });
});
