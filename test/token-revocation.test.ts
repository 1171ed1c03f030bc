/**
 * The signed-in floor (issue 26; docs/decisions.md "The signed-in floor"): a token's revocation is
 * looked up once per TOKEN_REVOCATION_RECHECK_SECONDS, not on every request; a logout is refused at
 * once on its instance and, through the bus, on the others; a lost notice holds at most the recheck.
 */
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
