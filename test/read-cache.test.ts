/**
 * The answer cache of the public REST reads (src/rest/answer-cache.ts; docs/decisions.md "City
 * scale: the answer cache"): a repeated read sends no statement and the same bytes; a write
 * is seen once the second of the cached answer has passed; the next second of the service's
 * clock recomputes; viewers never share answers; only 200s are kept; identical
 * reads in flight share one statement (and its failure); READ_CACHE=off and the bounds hold.
 * Real PostgreSQL, real HTTP. The service's clock is fixed; the system clock is not, so a test
 * that needs a repeat to hit starts at the beginning of a system second.
 */
import http from 'node:http';
import knex from 'knex';
import { Factory } from './helpers/factories';
import { makeOwner } from './helpers/owners';
import { countStatements } from './helpers/statements';
import { useClockedTestServer } from './helpers/setup';
import { startTestServer, TestServer } from './helpers/server';

let server: TestServer;
let make: Factory;
const clock = useClockedTestServer(
  (s, f) => {
    server = s;
    make = f;
  },
  { READ_CACHE: 'on' },
);

/** Monday 23 Nov 2026, 10:00 in Casablanca: the factories' stores are open. */
const NOW = new Date('2026-11-23T09:00:00Z');
const extra: TestServer[] = [];
beforeEach(() => clock.set(NOW));
afterEach(async () => {
  await Promise.all(extra.splice(0).map((s) => s.close()));
});

/** Another service on this file's database, with its own settings (tables are emptied by the file's server). */
async function serverWith(env: Record<string, string>): Promise<TestServer> {
  const s = await startTestServer({ READ_CACHE: 'on', ...env }, server.db);
  extra.push(s);
  return s;
}

/** Waits for a fresh second of the system clock (PostgreSQL's now(), which entries also follow), so a few requests fit in one. */
async function startOfSecond(): Promise<void> {
  const left = 1000 - (Date.now() % 1000);
  if (left < 800) await new Promise((resolve) => setTimeout(resolve, left + 5));
}

/**
 * `steps` from the start of a system second, run again (at most five times) when that second
 * ended before they did: entries live for the second they were computed in, so steps that
 * expect a hit fit in one (a loaded machine can take longer than a second for a dozen reads).
 */
async function inOneSecond<T>(steps: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await startOfSecond();
    const second = Math.floor(Date.now() / 1000);
    const result = await steps();
    if (Math.floor(Date.now() / 1000) === second || attempt === 5) return result;
  }
}

const statements = (s: TestServer, path: string, token?: string) =>
  countStatements(s.db.orm, () => s.http.get(path, { token })).then(({ count, result }) => ({ count, res: result }));

/** Headers that differ between any two answers. */
const VARYING = new Set(['date', 'x-request-id', 'keep-alive', 'connection']);
const stableHeaders = (headers: Headers) => [...headers].filter(([name]) => !VARYING.has(name));

/** A handful of rows every public read finds something in. */
async function city() {
  const category = await make.storeCategory({ name: 'Pizza' });
  const {
    store,
    menu,
    category: section,
    products,
  } = await make.storeWithProducts(2, { category: category as never, name: 'Pizza Roma' }, { name: 'Margherita' });
  const offer = await make.offer({ storeId: store.id, title: 'Half price' });
  await make.ad();
  return { store, menu, section, products, offer };
}

describe('a repeated read', () => {
  it('is answered without a statement, with the same status, headers and bytes', async () => {
    const { store } = await city();
    const paths = [
      '/api/v1/global/ads',
      `/api/v1/store/stores/${store.id}`,
      `/api/v1/store/stores/${store.slug}`,
      `/api/v1/store/stores/${store.id}/catalog`,
      `/api/v1/store/products?store_id=${store.id}`,
      '/api/v1/stores/nearby?lat=33.5731&lng=-7.5898',
      '/api/v1/homepage?lat=33.5731&lng=-7.5898',
      '/api/v1/global/search?q=pizza',
      '/api/v1/store/store-categories',
      '/api/store/categories',
      `/api/v1/store/offers?store_id=${store.id}`,
      '/api/v1/payment-methods',
    ];
    for (const path of paths) {
      const [first, second] = await inOneSecond(async () => [await statements(server, path), await statements(server, path)]);
      expect([path, first.res.status, second.res.status]).toEqual([path, 200, 200]);
      expect([path, first.count > 0, second.count]).toEqual([path, true, 0]);
      expect(JSON.stringify(second.res.body)).toBe(JSON.stringify(first.res.body));
      expect(stableHeaders(second.res.headers)).toEqual(stableHeaders(first.res.headers));
      expect(first.res.headers.get('etag')).toMatch(/^W\/"/);
    }
  });

  it('is one key for the same variables however they are written', async () => {
    await city();
    await server.http.get('/api/v1/stores/nearby?lat=0&lng=0');
    await startOfSecond();
    expect((await statements(server, '/api/v1/stores/nearby?lat=33.5731&lng=-7.5898&page=1')).count).toBeGreaterThan(0);
    expect((await statements(server, '/api/v1/stores/nearby?page=01&lng=-7.58980&lat=33.57310')).count).toBe(0);
  });

  it('answers 304 to If-None-Match as before', async () => {
    await city();
    await startOfSecond();
    const first = await server.http.get('/api/v1/global/ads');
    // node:http, not fetch: fetch adds `Cache-Control: no-cache` to a conditional request, which Express honours.
    const status = await new Promise<number | undefined>((resolve, reject) =>
      http
        .get(`${server.url}/api/v1/global/ads`, { headers: { 'if-none-match': first.headers.get('etag')! } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
        .on('error', reject),
    );
    expect(status).toBe(304);
  });
});

describe('a write', () => {
  it('through this instance or another is in a read once the second of the cached answer has passed', async () => {
    const owner = await makeOwner(server, make);
    const offer = await make.offer({ storeId: owner.store.id, title: 'Before' });
    const details = `/api/v1/store/stores/${owner.store.id}`;
    expect((await server.http.get(details)).body.data.offers[0].title).toBe('Before');
    const put = await server.http.put(`/api/v1/store/offers/${offer.id}`, { title: 'After' }, { token: owner.token });
    expect(put.status).toBe(200);
    // Polled: until the cached answer's second (system clock) passes, the cache may answer it.
    const title = async () => (await server.http.get(details)).body.data.offers[0].title as string;
    for (let read = await title(); read !== 'After'; read = await title()) {
      expect(read).toBe('Before');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});

describe('the next second of the service clock', () => {
  it('recomputes, and then shows what changed outside this instance', async () => {
    const { store } = await city();
    const details = `/api/v1/store/stores/${store.id}`;
    // Every test runs at the same service second: the next system second retires earlier tests' entries.
    await new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)));
    expect((await statements(server, details)).res.body.data.name).toBe('Pizza Roma');
    // Another instance's write: this process's ORM does not see it.
    const other = knex({ client: 'pg', connection: server.db.orm.config.getClientUrl(), pool: { min: 0, max: 1 } });
    try {
      await other.raw(`update stores set name = 'Roma Nord' where id = ?`, [store.id]);
    } finally {
      await other.destroy();
    }
    clock.set(new Date(NOW.getTime() + 1000));
    const next = await statements(server, details);
    expect(next.count).toBeGreaterThan(0);
    expect(next.res.body.data.name).toBe('Roma Nord');
  });
});

describe('viewers', () => {
  it("never share answers: the owner sees their inactive store's offers, anyone else 404, in either order", async () => {
    const owner = await makeOwner(server, make, { isActive: false });
    const stranger = await makeOwner(server, make);
    await make.offer({ storeId: owner.store.id });
    const details = `/api/v1/store/offers?store_id=${owner.store.id}`;
    await startOfSecond();
    expect((await server.http.get(details, { token: owner.token })).status).toBe(200);
    expect((await server.http.get(details)).status).toBe(404);
    expect((await server.http.get(details, { token: stranger.token })).status).toBe(404);
    expect((await server.http.get(details, { token: owner.token })).status).toBe(200);
    // Nothing: the token was checked a moment ago (trusted for TOKEN_REVOCATION_RECHECK_SECONDS), the answer is the owner's kept one.
    expect((await statements(server, details, owner.token)).count).toBe(0);
    // A refused token reads as anonymous, and is answered as anonymous.
    expect((await server.http.get(details, { token: 'not-a-token' })).status).toBe(404);
  });
});

describe('answers other than 200', () => {
  it('are computed every time', async () => {
    await startOfSecond();
    for (const path of ['/api/v1/store/stores/424242', '/api/v1/store/products?store_id=424242']) {
      expect((await statements(server, path)).res.status).toBe(404);
      expect((await statements(server, path)).count).toBeGreaterThan(0);
    }
    const invalid = await statements(server, '/api/v1/stores/nearby?lat=100&lng=0');
    expect(invalid.res.status).toBe(422);
  });
});

/**
 * A connection of its own (not from the service's pool, so its statements are not counted)
 * that holds a lock until released, and sees when a statement of the service waits for it.
 */
async function holdLock(target: TestServer, sql: string) {
  const own = knex({ client: 'pg', connection: target.db.orm.config.getClientUrl(), pool: { min: 1, max: 1 } });
  const trx = await own.transaction();
  await trx.raw(sql);
  return {
    async blocked(): Promise<void> {
      for (let i = 0; i < 200; i++) {
        const { rows } = await trx.raw(
          `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
        );
        if (rows[0].n > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error('no statement waited for the lock');
    },
    async release(): Promise<void> {
      await trx.rollback();
      await own.destroy();
    },
  };
}

describe('identical reads in flight', () => {
  it('share one statement', async () => {
    const { store } = await city();
    const details = `/api/v1/store/stores/${store.id}`;
    const lock = await holdLock(server, 'lock table stores in access exclusive mode');
    const { count, result } = await countStatements(server.db.orm, async () => {
      const answers = Array.from({ length: 5 }, () => server.http.get(details));
      await lock.blocked();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await lock.release();
      return Promise.all(answers);
    });
    expect(result.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(result.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(count).toBe(1);
  });

  it('share one failure, and the next read computes again', async () => {
    // The shared pool's lock timeout (DB_LOCK_TIMEOUT_MS, 3 s) ends the one computation the four wait for.
    const s = await serverWith({});
    const { store } = await city();
    const details = `/api/v1/store/stores/${store.id}`;
    const lock = await holdLock(s, 'lock table stores in access exclusive mode');
    let answers: Promise<Awaited<ReturnType<typeof s.http.get>>>[] = [];
    // Counted while the four are in flight together (the statement waits on the lock; then 300 ms for the rest to join).
    const first = await countStatements(s.db.orm, async () => {
      answers = Array.from({ length: 4 }, () => s.http.get(details));
      await lock.blocked();
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    const all = await Promise.all(answers).finally(() => lock.release());
    expect(all.map((r) => r.status)).toEqual([503, 503, 503, 503]);
    expect(first.count).toBe(1);
    // Nothing of the failure was kept: the next read computes (its statements; "open now" may need its loader's).
    const next = await statements(s, details);
    expect(next.res.status).toBe(200);
    expect(next.count).toBeGreaterThan(0);
  });
});

describe('READ_CACHE=off', () => {
  it('computes every answer', async () => {
    const s = await serverWith({ READ_CACHE: 'off' });
    await city();
    await startOfSecond();
    expect((await statements(s, '/api/v1/global/ads')).count).toBe(1);
    expect((await statements(s, '/api/v1/global/ads')).count).toBe(1);
  });
});

describe('the bounds', () => {
  it('keep at most READ_CACHE_MAX_ENTRIES, the newest', async () => {
    const s = await serverWith({ READ_CACHE_MAX_ENTRIES: '2' });
    await city();
    const q = (term: string) => `/api/v1/global/search?q=${term}`;
    await startOfSecond();
    for (const term of ['aa', 'bb', 'cc']) expect((await statements(s, q(term))).count).toBeGreaterThan(0);
    expect((await statements(s, q('cc'))).count).toBe(0);
    expect((await statements(s, q('bb'))).count).toBe(0);
    expect((await statements(s, q('aa'))).count).toBeGreaterThan(0);
  });

  it('keep no answer larger than READ_CACHE_MAX_BYTES', async () => {
    const s = await serverWith({ READ_CACHE_MAX_BYTES: '1024' });
    const { store } = await city();
    await startOfSecond();
    const catalog = `/api/v1/store/stores/${store.id}/catalog`;
    const first = await statements(s, catalog);
    expect(JSON.stringify(first.res.body).length).toBeGreaterThan(512);
    expect((await statements(s, catalog)).count).toBeGreaterThan(0);
    // A small one still fits.
    expect((await statements(s, '/api/v1/payment-methods')).count).toBeGreaterThan(0);
    expect((await statements(s, '/api/v1/payment-methods')).count).toBe(0);
  });
});
