/**
 * The signed-in floor (issue 26; docs/decisions.md "The signed-in floor"): a token's revocation is
 * looked up once per TOKEN_REVOCATION_RECHECK_SECONDS, not on every request; a logout is refused at
 * once on its instance and, through the bus, on the others; a lost notice holds at most the recheck.
 */
import { VerifiedTokens } from '../src/modules/auth/token.service';
import type { Viewer } from '../src/context';
import { registerCustomer } from './helpers/auth';
import { startTestServer, TestServer } from './helpers/server';
import { useTestServer } from './helpers/setup';
import { countStatements, watchStatements } from './helpers/statements';
import { until } from './helpers/ws';

let server: TestServer;
useTestServer((s) => (server = s));

const me = (s: TestServer, token: string) => s.http.get('/v1/auth/customer/me', { token });
const lookups = async (s: TestServer, call: () => Promise<unknown>) => {
  const watch = watchStatements(s.db.orm);
  try {
    await call();
  } finally {
    watch.stop();
  }
  return watch.stop().filter((sql) => /revoked_tokens/.test(sql)).length;
};

it('looks a token up in revoked_tokens once, then trusts it for the recheck interval', async () => {
  const { token } = await registerCustomer(server);
  expect(await lookups(server, () => me(server, token))).toBe(1);
  expect(await lookups(server, async () => Promise.all([1, 2, 3].map(() => me(server, token))))).toBe(0);
  // The request's own statements: the user's row only.
  expect((await countStatements(server.db.orm, () => me(server, token))).count).toBe(1);
});

it('a logout is refused at once on its instance, and on another one within the recheck when it hears nothing', async () => {
  const other = await startTestServer({ TOKEN_REVOCATION_RECHECK_SECONDS: '1' }, server.db); // its own in-process bus
  try {
    const { token } = await registerCustomer(server);
    expect((await me(server, token)).status).toBe(200);
    expect((await me(other, token)).status).toBe(200);
    expect((await server.http.post('/v1/auth/customer/logout', undefined, { token })).status).toBe(200);
    const refused = await me(server, token);
    expect([refused.status, refused.body]).toEqual([401, { message: 'The token has been revoked.' }]);
    await until(async () => (await me(other, token)).status === 401, 'the other instance refusing the token', 2500);
  } finally {
    await other.close();
  }
});

const redis = process.env.REDIS_URL;
(redis ? it : it.skip)('with Redis, every instance refuses a logout at once', async () => {
  const a = await startTestServer({ REDIS_URL: redis! }, server.db);
  const b = await startTestServer({ REDIS_URL: redis! }, server.db);
  try {
    const { token } = await registerCustomer(a);
    expect((await me(b, token)).status).toBe(200); // trusted on B for 30 s from now
    expect((await a.http.post('/v1/auth/customer/logout', undefined, { token })).status).toBe(200);
    await until(async () => (await me(b, token)).status === 401, "B hearing A's logout", 1000);
  } finally {
    await a.close();
    await b.close();
  }
});

describe('verified tokens', () => {
  const viewer = (userId: number, expiresInSeconds: number): Viewer => ({
    userId,
    tokenId: `jti-${userId}`,
    expiresAt: new Date((Math.floor(Date.now() / 1000) + expiresInSeconds) * 1000),
  });
  afterEach(() => jest.restoreAllMocks());

  it('verifies a token once while it lasts, again once it has expired, and keeps nothing of a token refused', () => {
    const verified = new VerifiedTokens();
    const verify = jest.fn(() => viewer(1, 60));
    expect(verified.viewer('a', verify)).toMatchObject({ userId: 1 });
    expect(verified.viewer('a', verify)).toMatchObject({ userId: 1 });
    expect(verify).toHaveBeenCalledTimes(1);
    // Its expiry's second reached: verified again (jsonwebtoken then refuses it as expired).
    const expiry = verified.viewer('a', verify).expiresAt.getTime();
    jest.spyOn(Date, 'now').mockReturnValue(expiry);
    const refuse = jest.fn((): Viewer => {
      throw new Error('The token has expired.');
    });
    expect(() => verified.viewer('a', refuse)).toThrow('The token has expired.');
    expect(() => verified.viewer('a', refuse)).toThrow('The token has expired.');
    expect([refuse.mock.calls.length, verified.size]).toEqual([2, 0]);
  });

  it('keeps at most its bound of tokens, forgetting the oldest first', () => {
    const verified = new VerifiedTokens(2);
    const verify = jest.fn((userId: number) => viewer(userId, 60));
    for (const [token, userId] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      verified.viewer(token, () => verify(userId));
    expect(verified.size).toBe(2);
    verified.viewer('c', () => verify(3));
    verified.viewer('b', () => verify(2));
    expect(verify).toHaveBeenCalledTimes(3); // b and c still known
    verified.viewer('a', () => verify(1)); // forgotten: verified again
    expect([verify.mock.calls.length, verified.size]).toEqual([4, 2]);
  });

  it('a refused token is answered 401 however often it comes (nothing kept)', async () => {
    const bad = 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    for (let k = 0; k < 2; k++) expect((await me(server, bad)).status).toBe(401);
  });
});
