/**
 * GET /metrics (Prometheus' text format) on its own port, over real HTTP: request counts and
 * latency by route and status, the database pool (as PostgreSQL sees it), open websockets and subscriptions, events
 * published, rate-limit refusals, default process metrics; never on the application's port.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { startMetricsServer } from '../src/common/metrics';
import { loadConfig } from '../src/config';
import { passCooldown } from './helpers/auth';
import { Factory } from './helpers/factories';
import { orderWorld, placeOrder } from './helpers/orders';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';
import { initSocket, RawSocket, until } from './helpers/ws';

let server: TestServer;
let make: Factory;
useTestServer((s, f) => {
  server = s;
  make = f;
});

let metricsServer: http.Server;
let metricsUrl: string;
beforeAll(async () => {
  metricsServer = await startMetricsServer(0, '127.0.0.1');
  metricsUrl = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => metricsServer.close(() => resolve())));

const sockets: RawSocket[] = [];
afterEach(() => sockets.splice(0).forEach((s) => s.socket.terminate()));

/** Every sample of the scrape: `name{labels}` -> value. */
async function scrape(): Promise<Map<string, number>> {
  const answer = await fetch(`${metricsUrl}/metrics`);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of (await answer.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}
const requests = (samples: Map<string, number>, method: string, route: string, status: number) =>
  samples.get(`http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`) ?? 0;

test('requests are counted by method, route (the REST row, not the path) and status, with latency buckets', async () => {
  const before = await scrape();
  for (let i = 0; i < 3; i++) expect((await server.http.get('/healthz')).status).toBe(200);
  expect((await server.http.get('/api/v1/customer/orders/987654')).status).toBe(401);
  expect((await server.http.get('/api/v1/customer/orders/987655')).status).toBe(401);
  expect((await server.http.get('/no/such/path')).status).toBe(404);
  expect((await server.http.graphql('{ __typename }')).status).toBe(200);
  const after = await scrape();

  expect(requests(after, 'GET', '/healthz', 200) - requests(before, 'GET', '/healthz', 200)).toBe(3);
  // Two ids, one label: the row's pattern keeps the label set small.
  const row = '/api/v1/customer/orders/:id';
  expect(requests(after, 'GET', row, 401) - requests(before, 'GET', row, 401)).toBe(2);
  expect(requests(after, 'GET', 'unmatched', 404) - requests(before, 'GET', 'unmatched', 404)).toBe(1);
  expect(requests(after, 'POST', '/graphql', 200) - requests(before, 'POST', '/graphql', 200)).toBe(1);
  expect([...after.keys()].some((k) => k.includes('987654'))).toBe(false);
  expect(after.get('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/healthz",status="200"}')).toBe(
    requests(after, 'GET', '/healthz', 200),
  );
});

test('the database pool counts connections in a transaction or a statement as used, idle ones as free', async () => {
  const pool = async () => {
    const samples = await scrape();
    return { used: samples.get('db_pool_connections{state="used"}'), free: samples.get('db_pool_connections{state="free"}') };
  };
  expect((await pool()).used).toBe(0);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // One connection idle in a transaction, another running a statement: both lent out.
  const transaction = server.db.orm.em.fork().transactional(async (tx) => {
    await tx.execute('select 1');
    await held;
  });
  const statement = server.db.orm.em.fork().execute('select pg_sleep(1.5)');
  await until(async () => (await pool()).used === 2, 'two connections used');
  expect((await pool()).free).toBeGreaterThanOrEqual(1); // the scrape's own, idle again after it
  release();
  await Promise.all([transaction, statement]);
  await until(async () => (await pool()).used === 0, 'both connections back');
});

test('the default process metrics are reported', async () => {
  const samples = await scrape();
  expect(samples.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
  expect(samples.get('process_resident_memory_bytes')).toBeGreaterThan(0);
  expect(samples.has('nodejs_eventloop_lag_seconds')).toBe(true);
});

test('open websockets, subscriptions, published events and refusals move with what happens', async () => {
  const w = await orderWorld(server, make);
  const orderId = (await placeOrder(server, w)).body.data.order_id;
  const before = await scrape();
  const raw = await initSocket(server.wsUrl, w.customer.token);
  sockets.push(raw);
  raw.send({ id: '1', type: 'subscribe', payload: { query: `subscription { orderUpdates(orderId: ${orderId}) { seq status } }` } });
  await raw.next('next');
  const during = await scrape();
  expect(during.get('websockets_open')! - before.get('websockets_open')!).toBe(1);
  expect(during.get('subscriptions_active')! - before.get('subscriptions_active')!).toBeGreaterThanOrEqual(1);

  // The store accepts: one order event published.
  const events = (s: Map<string, number>) => s.get('live_events_published_total{topic="order"}') ?? 0;
  const accepted = await server.http.post(`/api/v1/store/orders/${orderId}/accept`, {}, { token: w.owner.token });
  expect(accepted.status).toBe(200);
  await until(async () => events(await scrape()) > events(during), 'an order event counted');

  // A second code inside the resend cooldown is refused (429): one refusal.
  const refusals = (s: Map<string, number>) => s.get('rate_limit_refusals_total{limit="request"}') ?? 0;
  await passCooldown(server);
  const phone = w.customer.user.phone_number;
  expect((await server.http.post('/v1/auth/customer/send-otp', { phone_number: phone })).status).toBe(202);
  expect((await server.http.post('/v1/auth/customer/send-otp', { phone_number: phone })).status).toBe(429);
  expect(refusals(await scrape()) - refusals(during)).toBe(1);

  raw.socket.terminate();
  await until(async () => (await scrape()).get('websockets_open') === before.get('websockets_open'), 'the socket no longer counted');
});

test('/metrics is served on the metrics port only: the application port answers 404, the metrics port nothing else', async () => {
  expect((await server.http.get('/metrics')).status).toBe(404);
  expect((await fetch(`${metricsUrl}/`)).status).toBe(404);
  expect((await fetch(`${metricsUrl}/metrics`, { method: 'POST' })).status).toBe(404);
});

test('METRICS_PORT must not be the application port', () => {
  expect(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' })).toThrow(/METRICS_PORT must differ from PORT/);
  expect(loadConfig({ PORT: '3000', METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '0.0.0.0' });
  expect(loadConfig({}).metrics.port).toBeUndefined();
});
