/**
 * Security headers, CORS and caching (issue 10, finding 10).
 */
import { loadConfig } from '../src/config';
import { registerCustomer } from './helpers/auth';
import { useTestServer } from './helpers/setup';
import { startTestServer, TestServer, TEST_CODE, TEST_PHONE } from './helpers/server';

let server: TestServer;
useTestServer((s) => {
  server = s;
});

describe('security headers', () => {
  it('are on every API answer, errors included', async () => {
    for (const res of [
      await server.http.get('/api/v1/global/search?q=pizza'),
      await server.http.get('/nope'),
      await server.http.graphql('{ mainCategories { id } }'),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none';base-uri 'none'");
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('leave the HTML pages their own CSP', async () => {
    const res = await fetch(`${server.url}/docs`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });
});

describe('Cache-Control: no-store', () => {
  it('is on sign-in answers that carry tokens, on GraphQL, and on answers to a signed-in caller', async () => {
    await server.http.post('/v1/auth/customer/send-otp', { phone_number: TEST_PHONE });
    const verified = await server.http.post('/v1/auth/customer/verify-otp', { phone_number: TEST_PHONE, verification_code: TEST_CODE });
    expect(verified.status).toBe(200);
    expect(verified.headers.get('cache-control')).toBe('no-store');
    expect((await server.http.graphql('{ mainCategories { id } }')).headers.get('cache-control')).toBe('no-store');
    const { token } = await registerCustomer(server);
    expect((await server.http.get('/api/v1/customer/addresses', { token })).headers.get('cache-control')).toBe('no-store');
    expect((await server.http.get('/v1/auth/customer/me', { token })).headers.get('cache-control')).toBe('no-store');
    // An anonymous public read may be cached.
    expect((await server.http.get('/api/v1/global/search?q=pizza')).headers.get('cache-control')).toBeNull();
  });
});

describe('CORS', () => {
  const preflight = (url: string, origin: string) =>
    fetch(`${url}/api/v1/customer/orders`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });

  it('is off by default: no Access-Control headers for any origin', async () => {
    const res = await server.http.get('/api/v1/global/search?q=pizza', { headers: { origin: 'https://evil.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(server.url, 'https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows exactly the configured origins', async () => {
    const s = await startTestServer({ CORS_ORIGINS: 'https://dashboard.example.com' }, server.db);
    try {
      const ok = await preflight(s.url, 'https://dashboard.example.com');
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://dashboard.example.com');
      expect(ok.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key, X-Request-Id');
      expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
      const read = await s.http.get('/api/v1/global/search?q=pizza', { headers: { origin: 'https://dashboard.example.com' } });
      expect(read.headers.get('access-control-allow-origin')).toBe('https://dashboard.example.com');
      expect(read.headers.get('vary')).toMatch(/Origin/);
      const other = await preflight(s.url, 'https://dashboard.example.com.evil.example');
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await s.close();
    }
  });

  it('refuses a malformed or wildcard allow-list at start', () => {
    expect(() => loadConfig({ CORS_ORIGINS: '*' })).toThrow(/CORS_ORIGINS entry "\*" must be an origin/);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).toThrow(/CORS_ORIGINS entry/);
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:5173' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
  });
});
