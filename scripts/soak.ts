/**
 * Bounded soak (not in CI):  npm run soak -- [--minutes 10] [--concurrency 4] [--database embedded|postgresql|both]
 *
 * Starts the service as its own process (`src/main.ts`, development mode, so the demo city is
 * loaded into a fresh database) on the embedded database and/or on a fresh `<DATABASE_URL db>_soak`
 * database, then drives mixed traffic at it for the given minutes: REST reads (nearby, home,
 * search, catalog, store), GraphQL queries, checkouts and cancellations, and websocket
 * subscriptions that follow each order to its end. Every minute it prints the requests, 5xx,
 * p99 and the service's resident memory. Exits 1 on any 5xx, or when memory grew more than 20 %
 * from the first full minute to the last. The bar: zero 5xx and flat memory.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { serverDatabase } from '../src/db/admin';

const ROOT = path.resolve(__dirname, '..');
const CENTRE = { lat: 33.5731, lng: -7.5898 };
const DEMO_CUSTOMER = '+15550000001';
const DEMO_CODE = '123456';

type Data<T> = { data: T };
type Catalog = { menus: { categories: { products: { id: number; options: { is_required: boolean; min_select: number }[] }[] }[] }[] };

interface Minute {
  requests: number;
  errors5xx: number;
  errors4xx: number;
  latencies: number[];
  wsEvents: number;
}

const newMinute = (): Minute => ({ requests: 0, errors5xx: 0, errors4xx: 0, latencies: [], wsEvents: 0 });

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

const p99 = (values: number[]) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))];
};

async function startService(env: Record<string, string | undefined>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'development', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('the service did not start in 120 s')), 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /listening on http:\/\/localhost:(\d+)/.exec(buffer);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening`)));
  });
  // Keep draining its log so the pipe never blocks it.
  child.stdout.resume();
  return { child, port };
}

async function soak(label: string, env: Record<string, string | undefined>, minutes: number, concurrency: number): Promise<boolean> {
  console.log(`\n== ${label}: ${minutes} min, ${concurrency} clients in flight`);
  const { child, port } = await startService({
    ...env,
    LOG_LEVEL: 'info',
    // A soak is one customer from one address: the abuse limits are tested elsewhere.
    ORDERS_PER_CUSTOMER_PER_MINUTE: '100000',
    ORDERS_PER_IP_PER_MINUTE: '100000',
  });
  const base = `http://127.0.0.1:${port}`;
  let minute = newMinute();
  const call = async <T = unknown>(method: string, url: string, body?: unknown, token?: string): Promise<T> => {
    const started = performance.now();
    const res = await fetch(base + url, {
      method,
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    minute.latencies.push(performance.now() - started);
    minute.requests += 1;
    if (res.status >= 500) {
      minute.errors5xx += 1;
      console.log(`  5xx ${res.status} ${method} ${url}: ${text.slice(0, 200)}`);
    } else if (res.status >= 400) minute.errors4xx += 1;
    return (text ? JSON.parse(text) : undefined) as T;
  };

  // Set-up: the demo customer, an open store with a product that needs no choice, an address there.
  await call('POST', '/v1/auth/customer/send-otp', { phone_number: DEMO_CUSTOMER });
  const token = (
    await call<Data<{ access_token: string }>>('POST', '/v1/auth/customer/verify-otp', {
      phone_number: DEMO_CUSTOMER,
      verification_code: DEMO_CODE,
    })
  ).data.access_token;
  const nearby = await call<Data<{ stores: { id: number }[] } | { id: number }[]>>(
    'GET',
    `/api/v1/stores/nearby?lat=${CENTRE.lat}&lng=${CENTRE.lng}&is_open=1&per_page=50`,
  );
  const candidates = Array.isArray(nearby.data) ? nearby.data : nearby.data.stores;
  let order: { storeId: number; productId: number; addressId: number } | undefined;
  for (const candidate of candidates) {
    const catalog = (await call<Data<Catalog>>('GET', `/api/v1/store/stores/${candidate.id}/catalog`)).data;
    const product = catalog.menus
      .flatMap((m) => m.categories.flatMap((c) => c.products))
      .find((p) => !p.options.some((o) => o.is_required || o.min_select > 0));
    if (!product) continue;
    const store = (await call<Data<{ latitude: number; longitude: number }>>('GET', `/api/v1/store/stores/${candidate.id}`)).data;
    const address = await call<Data<{ id: number }>>(
      'POST',
      '/api/v1/customer/addresses',
      { label: 'Soak', line1: '1 Rue du Test', city: 'Casablanca', latitude: store.latitude, longitude: store.longitude },
      token,
    );
    order = { storeId: candidate.id, productId: product.id, addressId: address.data.id };
    break;
  }
  if (!order) throw new Error('no open store with a simple product near the centre');
  const ids = candidates.map((s) => s.id);
  const ws = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 5,
    lazy: false,
  });

  const point = () => ({ lat: CENTRE.lat + (Math.random() - 0.5) * 0.1, lng: CENTRE.lng + (Math.random() - 0.5) * 0.1 });
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  const terms = ['pizza', 'piza', 'burger', 'sushi', 'cafe', 'creme', 'tacos', 'salad'];
  const steps: (() => Promise<unknown>)[] = [
    () => {
      const p = point();
      return call('GET', `/api/v1/stores/nearby?lat=${p.lat}&lng=${p.lng}`);
    },
    () => {
      const p = point();
      return call('GET', `/api/v1/homepage?lat=${p.lat}&lng=${p.lng}`);
    },
    () => call('GET', `/api/v1/global/search?q=${pick(terms)}`),
    () => call('GET', `/api/v1/store/stores/${pick(ids)}/catalog`),
    () => call('GET', `/api/v1/store/stores/${pick(ids)}`),
    () =>
      call(
        'POST',
        '/graphql',
        { query: `{ nearbyStores(lat: ${CENTRE.lat}, lng: ${CENTRE.lng}, perPage: 10) { stores { id name isOpen } } me { id } }` },
        token,
      ),
    () => call('GET', '/api/v1/customer/orders', undefined, token),
    // A checkout followed live over the websocket until the customer cancels it.
    async () => {
      const placed = await call<Data<{ order_id: number }> | undefined>(
        'POST',
        '/api/v1/customer/orders',
        { store_id: order.storeId, address_id: order.addressId, items: [{ product_id: order.productId, quantity: 1 }] },
        token,
      );
      const id = placed?.data?.order_id;
      if (!id) return;
      const ended = new Promise<void>((resolve) => {
        const stop = ws.subscribe(
          { query: `subscription { orderUpdates(orderId: ${id}) { seq status } }` },
          { next: () => (minute.wsEvents += 1), error: () => resolve(), complete: () => resolve() },
        );
        setTimeout(() => (stop(), resolve()), 10_000).unref();
      });
      await call('POST', `/api/v1/customer/orders/${id}/cancel`, undefined, token);
      await ended;
    },
  ];

  const minutes_: (Minute & { rss: number })[] = [];
  const deadline = Date.now() + minutes * 60_000;
  const reporter = setInterval(() => {
    const rss = rssMb(child.pid!);
    const done = { ...minute, rss };
    minutes_.push(done);
    minute = newMinute();
    console.log(
      `  minute ${String(minutes_.length).padStart(2)}: ${String(done.requests).padStart(6)} requests, 5xx ${done.errors5xx}, 4xx ${done.errors4xx}, ` +
        `p99 ${p99(done.latencies).toFixed(0)} ms, websocket events ${done.wsEvents}, RSS ${rss.toFixed(0)} MB`,
    );
  }, 60_000);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        try {
          await pick(steps)();
        } catch (error) {
          minute.errors5xx += 1; // a broken connection counts as a server failure
          console.log(`  request failed: ${(error as Error).message}`);
        }
      }
    }),
  );
  clearInterval(reporter);
  await ws.dispose();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));

  const total5xx = minutes_.reduce((n, m) => n + m.errors5xx, 0) + minute.errors5xx;
  const first = minutes_[0]?.rss ?? 0;
  const last = minutes_[minutes_.length - 1]?.rss ?? 0;
  const growth = first > 0 ? (last - first) / first : 0;
  const ok = total5xx === 0 && growth <= 0.2;
  console.log(
    `  ${label}: ${total5xx} 5xx, RSS ${first.toFixed(0)} -> ${last.toFixed(0)} MB (${(growth * 100).toFixed(1)} %): ${ok ? 'PASS' : 'FAIL'}`,
  );
  return ok;
}

async function main() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '4' },
      database: { type: 'string', default: 'both' },
    },
  });
  const minutes = Number(values.minutes);
  const concurrency = Number(values.concurrency);
  const runs: [string, () => Promise<Record<string, string | undefined>>][] = [];
  if (values.database !== 'postgresql') {
    runs.push(['embedded database', () => Promise.resolve({ DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'soak-')) })]);
  }
  if (values.database !== 'embedded') {
    if (!process.env.DATABASE_URL) console.log('DATABASE_URL is not set: the PostgreSQL run is skipped.');
    else runs.push(['PostgreSQL', async () => ({ DATABASE_URL: await serverDatabase(process.env.DATABASE_URL!, 'soak', 'fresh') })]);
  }
  let ok = true;
  for (const [label, env] of runs) {
    const settings = await env();
    try {
      ok = (await soak(label, settings, minutes, concurrency)) && ok;
    } finally {
      if (settings.DATA_DIR) rmSync(settings.DATA_DIR, { recursive: true, force: true });
    }
  }
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
