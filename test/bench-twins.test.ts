/**
 * The benchmark's hand-written twins (scripts/bench-twins/) answer every read path they twin
 * byte for byte as the service does, on a seeded city: the bench's cost column compares them
 * only if so. `npm run bench -- --smoke` checks 30 of each path's bench URLs in CI; this
 * adds the corners the bench's generators do not reach (another page, a point at sea, no
 * point, a term nothing matches, a store that does not exist).
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { twinApp } from '../scripts/bench-twins/app';
import { memoryApp } from '../scripts/bench-twins/nearby-memory';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { checkoutRequests, prepareCustomers } from '../scripts/bench-customers';
import { bind } from '../scripts/bench-twins/twin';
import { CASABLANCA, refreshAfterBulkLoad, seedDemoCity } from '../src/db/seed/demo-city';
import { startTestServer, TestServer } from './helpers/server';

let server: TestServer;
let twin: http.Server;
let closeTwin: () => Promise<void>;
let twinUrl: string;
let memory: http.Server;
let memoryUrl: string;
let stores: { id: number; slug: string }[];

beforeAll(async () => {
  server = await startTestServer({ READ_CACHE: 'off' });
  await seedDemoCity(server.db.orm.em.fork(), { stores: 200, seed: 11 });
  await refreshAfterBulkLoad(server.db.orm.em.fork());
  stores = await server.db.orm.em.fork().execute(`select id, slug from stores where is_active order by id limit 6`);
  const twins = await twinApp(server.db.orm.config.get('clientUrl'), server.config);
  closeTwin = twins.close;
  twin = http.createServer(twins.app);
  await new Promise<void>((resolve) => twin.listen(0, '127.0.0.1', resolve));
  twinUrl = `http://127.0.0.1:${(twin.address() as AddressInfo).port}`;
  memory = http.createServer((await memoryApp(server.db.orm.config.get('clientUrl'))).app);
  await new Promise<void>((resolve) => memory.listen(0, '127.0.0.1', resolve));
  memoryUrl = `http://127.0.0.1:${(memory.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => twin?.close(resolve));
  await new Promise((resolve) => memory?.close(resolve));
  await closeTwin?.();
  await server?.close();
});

async function answer(base: string, url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}${url}`);
  return { status: res.status, body: await res.text() };
}

describe('the hand-written twins', () => {
  const centre = `lat=${CASABLANCA.lat}&lng=${CASABLANCA.lng}`;
  const urls = () => [
    '/api/v1/global/ads',
    `/api/v1/stores/nearby?${centre}`,
    `/api/v1/stores/nearby?${centre}&sort=rating&page=2`,
    `/api/v1/stores/nearby?${centre}&sort=delivery_fee&per_page=50&is_open=1`,
    `/api/v1/stores/nearby?${centre}&sort=delivery_time&has_offer=1`,
    `/api/v1/stores/nearby?${centre}&radius=3&free_delivery=1&min_rating=4`,
    `/api/v1/stores/nearby?${centre}&category_id=3&page=40`,
    '/api/v1/stores/nearby?lat=33.9&lng=-8.4',
    `/api/v1/homepage?${centre}`,
    '/api/v1/homepage?lat=33.9&lng=-8.4',
    '/api/v1/homepage',
    '/api/v1/global/search?q=pizza',
    '/api/v1/global/search?q=piza',
    '/api/v1/global/search?q=zzzzqx',
    ...stores.flatMap((s) => [
      `/api/v1/store/stores/${s.id}/catalog`,
      `/api/v1/store/stores/${s.slug}`,
      `/api/v1/store/stores/${s.id}`,
      `/api/v1/store/products?store_id=${s.id}`,
    ]),
    '/api/v1/store/stores/no-such-store',
    '/api/v1/store/stores/999999/catalog',
    '/api/v1/store/products?store_id=999999',
  ];

  it('answer the same status and bytes as the service', async () => {
    for (const url of urls()) {
      const [mine, theirs] = await Promise.all([answer(twinUrl, url), answer(server.url, url)]);
      expect({ url, ...mine }).toEqual({ url, ...theirs });
    }
  });

  it('answer nearby from memory (no statement: scripts/bench-twins/nearby-memory.ts) with the same bytes as the service', async () => {
    for (const url of urls().filter((u) => u.startsWith('/api/v1/stores/nearby'))) {
      const [mine, theirs] = await Promise.all([answer(memoryUrl, url), answer(server.url, url)]);
      expect({ url, ...mine }).toEqual({ url, ...theirs });
    }
  });

  /** The bench's checkout customers, each with a token this server accepts. */
  async function signedCustomers(n: number) {
    const customers = await prepareCustomers(server.db.orm.config.get('clientUrl'), n);
    const { secret, issuer, audience } = server.config.jwt;
    for (const c of customers) {
      c.token = jwt.sign({}, secret, {
        algorithm: 'HS256',
        expiresIn: 600,
        issuer,
        audience,
        subject: String(c.userId),
        jwtid: randomUUID(),
      });
    }
    return customers;
  }

  it("answer the bench's checkouts as the service does: one request (one key) to both at once makes one order, answered alike", async () => {
    const customers = await signedCustomers(3);
    const next = checkoutRequests(customers);
    const count = async () => Number((await server.db.orm.em.fork().execute(`select count(*) as n from orders`))[0].n);
    const before = await count();
    for (let k = 0; k < 6; k++) {
      const { path, ...init } = next();
      const [mine, theirs] = await Promise.all(
        [twinUrl, server.url].map(async (base) => {
          const res = await fetch(`${base}${path}`, init);
          return { status: res.status, body: await res.text() };
        }),
      );
      expect(mine).toEqual(theirs);
      expect(mine.status).toBe(201);
      // A retry to the twin alone answers the same.
      const again = await fetch(`${twinUrl}${path}`, init);
      expect({ status: again.status, body: await again.text() }).toEqual(theirs);
    }
    expect(await count()).toBe(before + 6);
  });

  it("send each bench customer's checkouts from the customer's own address, which the twin counts as the service does behind one trusted proxy", async () => {
    const customers = await signedCustomers(3);
    const next = checkoutRequests(customers);
    const sent = customers.map(() => next().headers?.['x-forwarded-for']);
    expect(sent).toEqual(customers.map((c) => c.clientIp));
    expect(new Set(sent).size).toBe(3);
    // The reading before checkout-6: every request from the bench's own address.
    expect(checkoutRequests(customers, { oneAddress: true })().headers).not.toHaveProperty('x-forwarded-for');
    // A twin trusting one proxy (as bench-service-env.ts has the services) counts the forwarded address.
    const proxied = await twinApp(server.db.orm.config.get('clientUrl'), { ...server.config, trustProxy: { hops: 1 } });
    const behind = http.createServer(proxied.app);
    await new Promise<void>((resolve) => behind.listen(0, '127.0.0.1', resolve));
    try {
      const { path, ...init } = next();
      const res = await fetch(`http://127.0.0.1:${(behind.address() as AddressInfo).port}${path}`, init);
      expect(res.status).toBe(201);
      const keys = await server.db.orm.em
        .fork()
        .execute(`select key from rate_limits where key = ?`, [`orders:ip:${customers[0].clientIp}`]);
      expect(keys).toHaveLength(1);
    } finally {
      await new Promise((resolve) => behind.close(resolve));
      await proxied.close();
    }
  });

  it('bind the service placeholders as pg parameters, a list one per item', () => {
    expect(bind('select ? from t where id in (?) and x = ?::jsonb', [1, [2, 3], '{}'])).toEqual({
      text: 'select $1 from t where id in ($2, $3) and x = $4::jsonb',
      values: [1, 2, 3, '{}'],
    });
    expect(() => bind('select ?', [])).toThrow();
  });
});
