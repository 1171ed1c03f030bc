/**
 * npm run peak -- [--orders 2000] [--seconds 60] [--stores 1000] [--redis up|down]
 *                 [--checkouts-per-second 3] [--steps-per-second 10] [--every 5] [--kill]
 *                 [--profile <dir>] [--memory <dir> [--heap-snapshots]] [--client http|fetch] [--channels fake|default]
 *
 * A city's dinner peak on this machine, loopback only (issue 26): a city of `--stores` stores
 * in `<DATABASE_URL's db>_peak_<stores>` (built once, as the bench builds its cities), a Redis
 * of its own (redis-server on a free loopback port), and two instances of the service as
 * processes (scripts/bench-servers.ts, as `npm run bench` starts them). Then:
 *   - `--orders` customers each place an order (a store of their own among one per ten
 *     orders), which its store's owner accepts (dispatch gives it a driver): the active orders;
 *   - each customer follows their order (graphql-ws `orderUpdates`) and each store's owner
 *     their board (`storeOrderUpdates`), on sockets spread over the two instances;
 *   - for `--seconds`: every order's driver (and every driver not carrying one) reports a
 *     position every `--every` seconds, new checkouts arrive (`--checkouts-per-second`, each
 *     followed by its customer), and store and driver steps move orders along
 *     (`--steps-per-second`: preparing, ready, picked up, delivered; new orders accepted).
 * With `--redis down` the Redis is stopped before the load: events and positions must reach
 * the followers through the database path (the streams' catch-up reads). With `--kill` the
 * second instance is killed (SIGKILL) halfway through the load: its followers open a socket on
 * the other instance and resume there (a customer with the last seq seen, a board with the last
 * seq seen of each order of its store: `afterSeqs`), and requests go to the survivor; no order
 * event may be lost by anyone (a position not yet flushed may).
 *
 * Prints the lag of events (from the event's `at`, its row's created_at, the transaction's
 * time, to its arrival at a follower) p50/p99, the lag of live positions (from the report's send,
 * and from the instance's receipt, the position's `at`; only positions reported after the
 * follower subscribed: the stored one resent on subscribe is not live), the
 * positions, checkouts and steps answered per second, each instance's RSS every 5 s, the load
 * average, and the events lost and duplicated: after the load (and a drain of up to 15 s)
 * every follower must hold every event its order (or its store's orders) stored after the
 * followers were set up, exactly once over all its subscriptions (a follower whose stream fails
 * resumes, as a client does: after the last seq seen). Exits 1 when an event is lost or duplicated, or any
 * step of the set-up fails. Smoke (CI): npm run peak -- --orders 50 --seconds 10 --stores 300
 *
 * The simulator shares the machine's cores with the instances: the run prints the CPU each
 * process spent over the load (the instances, this process, the run's Redis, the instances'
 * PostgreSQL backends) and the whole machine's, so a lag can be told the service's, the load
 * generator's or the other processes' of the machine. `--profile <dir>` writes V8 CPU profiles
 * of the load: each instance's and this process's. The services' outbound channels point at a
 * local fake (scripts/bench-fake-channels.ts; `--channels default` leaves WhatsApp at its real,
 * unreachable address, as runs did before 2026-11-27); `--client fetch` sends the requests with
 * `fetch` instead of node:http (before 2026-11-27). docs/perf/2026-11-27-peak-2.md.
 * `--memory <dir>`: each instance logs its memory every second (RSS, V8's heap and its spaces,
 * external memory: `<dir>/memory.jsonl`) and the run prints V8's heap beside RSS; with
 * `--heap-snapshots`, each also writes a V8 heap snapshot before the load and at its end
 * (`<dir>/Heap.*.heapsnapshot`; the run waits for each, minutes on a busy machine: the instances
 * pause while they write, their followers' streams fail and resume, and the figures of such a
 * run are not the peak's).
 * docs/perf/2026-11-27-peak-3.md.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access --
   the script reads the service's JSON answers untyped, as the cluster script does */
import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { freeLoopbackPort } from '../src/db/postgres-server';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client as Pg } from 'pg';
import type { Client } from 'graphql-ws';
import { randomUUID } from 'node:crypto';
import { serverDatabase } from '../src/db/admin';
import { Random } from '../src/db/seed/random';
import { BenchCustomer, cartOf, prepareCustomers } from './bench-customers';
import { BenchDriver, benchSigner, prepareDrivers } from './bench-drivers';
import { cpuSeconds, machineCpu, openGraphqlSocket, prepareCity, rssMb, Server, startServer, stopServer } from './bench-process';
import { BENCH_SERVICE_ENV } from './bench-service-env';
import { startFakeChannels } from './bench-fake-channels';
import { resumeDelay, retryAfterOf } from '../web/dashboard/resume-delay';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const { values: args } = parseArgs({
  options: {
    orders: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '60' },
    stores: { type: 'string', default: '1000' },
    redis: { type: 'string', default: 'up' },
    'checkouts-per-second': { type: 'string', default: '3' },
    'steps-per-second': { type: 'string', default: '10' },
    every: { type: 'string', default: '5' },
    kill: { type: 'boolean', default: false },
    profile: { type: 'string' },
    memory: { type: 'string' },
    'heap-snapshots': { type: 'boolean', default: false },
    client: { type: 'string', default: 'http' },
    channels: { type: 'string', default: 'fake' },
  },
});
const ORDERS = Number(args.orders);
const SECONDS = Number(args.seconds);
const STORES = Number(args.stores);
const CHECKOUTS_PER_SECOND = Number(args['checkouts-per-second']);
const STEPS_PER_SECOND = Number(args['steps-per-second']);
const EVERY_S = Number(args.every);
if (
  ![ORDERS, SECONDS, STORES, EVERY_S].every((n) => Number.isInteger(n) && n > 0) ||
  !(CHECKOUTS_PER_SECOND >= 0 && STEPS_PER_SECOND >= 0) ||
  !['up', 'down'].includes(args.redis) ||
  !['http', 'fetch'].includes(args.client) ||
  !['fake', 'default'].includes(args.channels) ||
  (args['heap-snapshots'] && (args.profile !== undefined || args.memory === undefined))
) {
  console.error(
    '--orders, --seconds, --stores, --every: whole numbers > 0; the rates: numbers >= 0; --redis up or down; --client http or fetch; ' +
      '--channels fake or default; --heap-snapshots needs --memory and not --profile (both signal the instances)',
  );
  process.exit(2);
}
/** One store (and board) per ten orders. */
const BOARDS = Math.max(1, Math.ceil(ORDERS / 10));

// ---------------------------------------------------------------------------------------------
// Processes

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A Redis of the run's own (no persistence), so `--redis down` stops nobody else's. */
async function startRedis(): Promise<{ url: string; process: ChildProcess }> {
  const port = await freeLoopbackPort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  children.add(child);
  for (let k = 0; k < 100; k++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return { url: `redis://127.0.0.1:${port}`, process: child };
    await sleep(100);
  }
  throw new Error('redis-server did not start');
}

// ---------------------------------------------------------------------------------------------
// Clients

/**
 * The simulator's HTTP client: node:http over kept-alive connections (`--client http`, the
 * default), or `fetch` (`--client fetch`, what the run used before: undici's fetch cost the
 * simulator about twice the CPU per request, on the cores the instances share;
 * docs/perf/2026-11-27-peak-2.md).
 */
// An idle connection is closed after 4 s, before the service's keep-alive timeout (5 s) closes it.
const agent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 4000 });
function request(
  base: string,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
  retried = false,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + url,
      { method, agent, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed as it was reused: the request never reached it (Node's advice: retry).
      if (req.reusedSocket && error.code === 'ECONNRESET' && !retried) resolve(request(base, method, url, headers, body, true));
      else reject(error);
    });
    req.end(body);
  });
}

async function call(base: string, method: string, url: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const all = { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  let status: number;
  let text: string;
  if (args.client === 'fetch') {
    const res = await fetch(base + url, { method, headers: all, body: payload });
    status = res.status;
    text = await res.text();
  } else ({ status, text } = await request(base, method, url, all, payload));
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status, body: parsed };
}

interface Update {
  orderId: number;
  driverId: number | null;
  latitude: number | null;
  longitude: number | null;
  seq: number;
  type: string;
  status: string;
  at: string;
}
const FIELDS = 'orderId seq type status at driverId latitude longitude';
const ORDER_UPDATES = `subscription ($orderId: Int!, $afterSeq: Int!) { orderUpdates(orderId: $orderId, afterSeq: $afterSeq) { ${FIELDS} } }`;
const BOARD_UPDATES = `subscription ($after: [OrderSeqInput!]) { storeOrderUpdates(afterSeqs: $after) { ${FIELDS} } }`;

/**
 * What one follower received: each (order, seq) with how many times over all its subscriptions
 * (a resume asks for what follows the last seq seen: nothing comes twice), and how often its
 * stream failed and was resumed.
 */
class Follower {
  readonly seen = new Map<string, number>();
  /** Per order, the last seq received. */
  readonly last = new Map<number, number>();
  duplicated = 0;
  errors = 0;
  /** Failures since the last message received (the resume's backoff). */
  failing = 0;
  completed = 0;
  generation = 0;
  constructor(readonly kind: 'customer' | 'board') {}
}

/** Event lag from the event's `at`; position lag from the report's send, and from the instance's receipt (its `at`). */
const lags = { event: [] as number[], position: [] as number[], positionFromReceipt: [] as number[] };
/** When each position was sent, by driver and point (the service rounds to the 6 decimals sent). */
const positionSent = new Map<string, number>();
const positionKey = (driverId: number, latitude: number, longitude: number) => `${driverId}:${latitude}:${longitude}`;
/** Stored positions resent on subscribe (a resume, a new order's follower) while measuring: not in the lag. */
let resentPositions = 0;
/** Live positions whose report this run did not send (none expected). */
let unmatchedPositions = 0;
let measuring = false;

/**
 * Resumes after a stream error while this holds (a client resumes; the run counts what it then
 * still misses), as the dashboard does (web/dashboard/resume-delay.ts): after the error's
 * retryAfter, else 0.3 s doubling with each failure in a row up to 5 s, jittered; giving up after
 * MAX_RESUMES failures in a row (~1 minute).
 */
let resuming = true;
const MAX_RESUMES = 20;
const RESUME_BOUNDS = { baseMs: 300, maxMs: 5000 };

/**
 * A follower's socket: the one it is on, or (after its instance was killed, or its socket closed)
 * a new one on a live instance.
 */
type SocketOf = () => Promise<Client>;

/**
 * A follower's subscription; after a failure it subscribes again with `variables()` computed
 * anew (a customer: afterSeq, the last seq seen of their order; a board: afterSeqs, the last seq
 * seen of each order of its store), as a client resumes.
 */
function follow(socketOf: SocketOf, follower: Follower, query: string, variables: () => Record<string, unknown>, field: string): void {
  const failed = (error: unknown) => {
    follower.errors += 1;
    follower.failing += 1;
    const why = errorReason(error);
    streamErrorReasons.set(why, (streamErrorReasons.get(why) ?? 0) + 1);
    if (!resuming || follower.failing > MAX_RESUMES) return;
    follower.generation += 1;
    setTimeout(
      () => follow(socketOf, follower, query, variables, field),
      resumeDelay(follower.failing, RESUME_BOUNDS, retryAfterOf(error)),
    );
  };
  const subscribeOn = (client: Client) => {
    // A position reported before this subscription is the driver's stored one, resent on subscribe:
    // not a live position, so not in the position lag (same machine, same clock as the service's `at`).
    const subscribedAt = Date.now();
    client.subscribe<Record<string, Update>>(
      { query, variables: variables() },
      {
        next: ({ data }) => {
          follower.failing = 0;
          const update = data?.[field];
          if (!update) return;
          const lag = Date.now() - Date.parse(update.at);
          if (update.type === 'driver_location') {
            if (!measuring) return;
            if (Date.parse(update.at) < subscribedAt) return void (resentPositions += 1);
            const sent = positionSent.get(positionKey(update.driverId ?? 0, update.latitude ?? NaN, update.longitude ?? NaN));
            if (sent === undefined) return void (unmatchedPositions += 1);
            lags.position.push(Date.now() - sent);
            lags.positionFromReceipt.push(lag);
            return;
          }
          const key = `${update.orderId}:${update.seq}`;
          if (follower.seen.has(key)) follower.duplicated += 1;
          follower.seen.set(key, (follower.seen.get(key) ?? 0) + 1);
          follower.last.set(update.orderId, Math.max(update.seq, follower.last.get(update.orderId) ?? 0));
          // This run's orders only: a board's resume also replays events of its store's orders of earlier runs (the city is kept).
          const since = baseline.get(update.orderId);
          if (measuring && since !== undefined && (follower.seen.get(key) ?? 0) === 1 && update.seq > since) lags.event.push(lag);
        },
        error: failed,
        complete: () => (follower.completed += 1),
      },
    );
  };
  socketOf().then(subscribeOn, failed);
}

/** Why followers' streams failed: a close code and reason, a GraphQL error's message, or an error's. */
const streamErrorReasons = new Map<string, number>();
function errorReason(error: unknown): string {
  if (Array.isArray(error)) return String((error[0] as { message?: string } | undefined)?.message ?? 'a GraphQL error').slice(0, 80);
  const close = error as { code?: number; reason?: string } | undefined;
  if (typeof close?.code === 'number') return `closed ${close.code}${close.reason ? ` ${close.reason}` : ''}`;
  return (error instanceof Error ? error.message : String(error)).slice(0, 80);
}

/** Each tracked order's last stored seq when the followers were set up (0 for an order placed later). */
const baseline = new Map<number, number>();

// ---------------------------------------------------------------------------------------------
// Figures

const at = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);
function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: at(sorted, 0.5), p99: at(sorted, 0.99) };
}
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * `--profile <dir>`: V8's sampling profiler over the load, in this process (the simulator) and
 * in each instance (BENCH_CPU_PROFILE, started and stopped by SIGUSR2: scripts/bench-servers.ts).
 */
async function profileSelf(dir: string): Promise<() => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/simulator-${process.pid}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  };
}

/**
 * `--heap-snapshots`: each instance writes a V8 heap snapshot (node's --heapsnapshot-signal); resolves
 * once every file is whole (its JSON closed and its size still for a second).
 */
async function heapSnapshots(dir: string, servers: Server[], when: string): Promise<void> {
  const started = Date.now();
  const before = new Set(readdirSync(dir));
  for (const server of servers) server.process.kill('SIGUSR2');
  const whole = (file: string) => {
    const size = statSync(file).size;
    if (size < 2) return -1;
    const fd = openSync(file, 'r');
    try {
      const tail = Buffer.alloc(2);
      readSync(fd, tail, 0, 2, size - 2);
      return tail.toString() === ']}' ? size : -1;
    } finally {
      closeSync(fd);
    }
  };
  let sizes = new Map<string, number>();
  for (;;) {
    await sleep(1000);
    const files = readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    const now = new Map(files.map((f) => [f, whole(path.join(dir, f))]));
    if (files.length >= servers.length && [...now].every(([f, size]) => size > 0 && sizes.get(f) === size)) break;
    sizes = now;
  }
  console.log(`heap snapshots ${when}: ${servers.length} in ${((Date.now() - started) / 1000).toFixed(0)} s (${dir})`);
}

/** When the load started (--memory's figures are read from then). */
let loadStartedAt = 0;

/**
 * `--memory`: each instance's V8 heap over the load, every 5 s, from its log (BENCH_MEMORY_LOG,
 * scripts/bench-servers.ts): the heap's size (what V8 holds of RSS), the lowest heap used in each
 * 5 s (after a collection: close to the live objects) and the highest (garbage not collected yet).
 */
function printHeap(file: string, servers: Server[], from: number, to: number): void {
  type Line = { pid: number; at: number; rss: number; heapTotal: number; heapUsed: number; external: number };
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.at >= from && l.at <= to);
  for (const server of servers) {
    const own = lines.filter((l) => l.pid === server.process.pid);
    const windows: string[] = [];
    for (let start = from; start < to; start += 5000) {
      const w = own.filter((l) => l.at >= start && l.at < start + 5000);
      if (w.length === 0) continue;
      const used = w.map((l) => l.heapUsed);
      const last = w[w.length - 1];
      windows.push(
        `${Math.round((start - from) / 1000)}s ${last.heapTotal.toFixed(0)} (${Math.min(...used).toFixed(0)}–${Math.max(...used).toFixed(0)}, ext ${last.external.toFixed(0)})`,
      );
    }
    console.log(`V8 heap MB of instance ${server.process.pid} every 5 s: size (used lowest–highest, external): ${windows.join(', ')}`);
  }
}

/** Runs `task` over `items`, `width` at a time. */
async function inPool<T>(items: T[], width: number, task: (item: T, k: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const k = next++;
        await task(items[k], k);
      }
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// The run

interface Tracked {
  orderId: number;
  customer: BenchCustomer;
  status: string;
  busy: boolean;
}

async function prepareOwners(databaseUrl: string, storeIds: number[]): Promise<Map<number, string>> {
  const client = new Pg({ connectionString: databaseUrl });
  await client.connect();
  try {
    const phones = storeIds.map((_, k) => `+2128000${String(k).padStart(5, '0')}`);
    await client.query(
      `insert into users (phone_number, first_name, last_name)
       select p, 'Peak', 'Owner ' || right(p, 5) from unnest($1::text[]) p on conflict (phone_number) do nothing`,
      [phones],
    );
    // Each store of the run gets an owner of its own (the owner's board is that store's).
    const { rows } = await client.query<{ store_id: number; user_id: number }>(
      `update stores s set owner_id = u.id from unnest($1::int[], $2::text[]) as x(store_id, phone) join users u on u.phone_number = x.phone
       where s.id = x.store_id returning s.id as store_id, u.id as user_id`,
      [storeIds, phones],
    );
    const sign = benchSigner(databaseUrl);
    return new Map(rows.map((r) => [r.store_id, sign(r.user_id)]));
  } finally {
    await client.end();
  }
}

/** Drivers waiting at the stores of the run (dispatch gives each order the nearest free one). */
async function placeDrivers(databaseUrl: string, drivers: BenchDriver[], customers: BenchCustomer[]): Promise<void> {
  const client = new Pg({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: number; latitude: number; longitude: number }>(
      `select id, latitude, longitude from stores where id = any($1::int[])`,
      [[...new Set(customers.map((c) => c.storeId))]],
    );
    const where = new Map(rows.map((r) => [r.id, r]));
    const spots = drivers.map((_, k) => where.get(customers[k % customers.length].storeId)!);
    await client.query(
      `update drivers d set is_online = true, latitude = h.lat, longitude = h.lng, location_updated_at = now() - interval '1 hour'
       from unnest($1::int[], $2::float8[], $3::float8[]) as h(id, lat, lng) where d.id = h.id`,
      [drivers.map((d) => d.driverId), spots.map((s) => s.latitude), spots.map((s) => s.longitude)],
    );
    drivers.forEach((d, k) => (d.home = { lat: spots[k].latitude, lng: spots[k].longitude }));
    // Orders of earlier runs hold no driver: every driver of the run is free.
    await client.query(`update orders set status = 'delivered' where status not in ('delivered', 'rejected', 'cancelled')`);
  } finally {
    await client.end();
  }
}

async function main() {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('npm run peak needs DATABASE_URL (a PostgreSQL server; the run makes its own database on it)');
  const started = Date.now();
  const databaseUrl = await serverDatabase(server, `peak_${STORES}`, 'keep');
  await prepareCity(databaseUrl, STORES);
  const customers = await prepareCustomers(databaseUrl, ORDERS, BOARDS);
  const stores = [...new Set(customers.map((c) => c.storeId))];
  const owners = await prepareOwners(databaseUrl, stores);
  const drivers = await prepareDrivers(databaseUrl, ORDERS);
  await placeDrivers(databaseUrl, drivers, customers);
  const driverToken = new Map(drivers.map((d) => [d.driverId, d.token]));
  const db = new Pg({ connectionString: databaseUrl });
  await db.connect();

  const memoryDir = args.memory && path.resolve(args.memory);
  if (memoryDir) mkdirSync(memoryDir, { recursive: true });
  const heapDir = args['heap-snapshots'] ? memoryDir : undefined;
  const redis = await startRedis();
  // Every outbound channel at a local fake (`--channels default`: WhatsApp at its default address, as before).
  const channels = args.channels === 'fake' ? await startFakeChannels() : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...BENCH_SERVICE_ENV,
    ...channels?.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `peak${process.pid}:`,
    WS_MAX_SOCKETS_PER_IP: '1000000',
    WS_CONNECTIONS_PER_IP_PER_MINUTE: '1000000',
    PGAPPNAME: `peak-${process.pid}`,
    ...(args.profile && { BENCH_CPU_PROFILE: args.profile }),
    ...(memoryDir && { BENCH_MEMORY_LOG: `${memoryDir}/memory.jsonl` }),
    ...(heapDir && { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${heapDir}`.trim() }),
  };
  const instances: Server[] = [];
  for (let k = 0; k < 2; k++) instances.push(await startServer('service', env));
  for (const instance of instances) if (instance.process) children.add(instance.process);
  /** Instances killed (`--kill`): requests and new sockets go to the others. */
  const dead = new Set<number>();
  const live = (k: number) => (dead.has(k % instances.length) ? (k + 1) % instances.length : k % instances.length);
  const base = (k: number) => instances[live(k)].url;
  const wsOf = (k: number) => `${base(k).replace('http', 'ws')}/graphql`;
  /** Each follower's socket by customer or store: reopened on a live instance once its instance died or it closed. */
  const lines = new Map<string, { instance: number; client: Promise<Client>; closed: boolean }>();
  const socketOf =
    (key: string, token: string, k: number): SocketOf =>
    () => {
      const current = lines.get(key);
      if (current && !current.closed && !dead.has(current.instance)) return current.client;
      const instance = live(k);
      const opened = openGraphqlSocket(wsOf(instance), token);
      const line = { instance, closed: false, client: opened.then(({ client }) => client) };
      opened.then(
        ({ closed }) => void closed.then(() => (line.closed = true)),
        () => (line.closed = true),
      );
      lines.set(key, line);
      return line.client;
    };
  console.log(
    `set-up: city, ${ORDERS} customers and drivers, ${stores.length} stores, 2 instances in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );

  // The active orders: placed and accepted (dispatch gives each a driver).
  const rnd = new Random(31);
  const tracked = new Map<number, Tracked>();
  let setupFailures = 0;
  await inPool(customers, 16, async (customer, k) => {
    const placed = await call(base(k), 'POST', '/api/v1/customer/orders', customer.token, cartOf(customer, rnd), {
      'idempotency-key': randomUUID(),
    });
    if (placed.status !== 201) return void (setupFailures += 1);
    const orderId = placed.body.data.order_id as number;
    const accepted = await call(base(k + 1), 'POST', `/api/v1/store/orders/${orderId}/accept`, owners.get(customer.storeId)!);
    if (accepted.status !== 200) return void (setupFailures += 1);
    tracked.set(orderId, { orderId, customer, status: 'accepted', busy: false });
  });
  if (setupFailures > 0) throw new Error(`${setupFailures} of ${ORDERS} orders could not be placed and accepted`);
  console.log(`set-up: ${tracked.size} active orders in ${((Date.now() - started) / 1000).toFixed(0)} s`);

  // The followers: each customer on a socket of their own, each owner's board; alternating instances.
  const customerSockets = new Map<number, SocketOf>();
  const followers: { follower: Follower; orderIds: () => number[] }[] = [];
  const followOrder = (socket: SocketOf, orderId: number) => {
    const follower = new Follower('customer');
    followers.push({ follower, orderIds: () => [orderId] });
    follow(socket, follower, ORDER_UPDATES, () => ({ orderId, afterSeq: follower.last.get(orderId) ?? 0 }), 'orderUpdates');
  };
  await inPool([...tracked.values()], 32, async (order, k) => {
    const socket = socketOf(`customer ${order.customer.userId}`, order.customer.token, k);
    await socket();
    customerSockets.set(order.customer.userId, socket);
    followOrder(socket, order.orderId);
  });
  await inPool(stores, 32, async (storeId, k) => {
    const socket = socketOf(`board ${storeId}`, owners.get(storeId)!, k + 1);
    await socket();
    const follower = new Follower('board');
    const orderIds = () => [...tracked.values()].filter((o) => o.customer.storeId === storeId).map((o) => o.orderId);
    followers.push({ follower, orderIds });
    // The first subscription asks for what happens from now on; a resume names every order the
    // board holds: those it received events of, and the store's orders it was set up with (at their baseline).
    const resumePoint = () => {
      const last = new Map(follower.last);
      for (const id of orderIds()) if (baseline.has(id)) last.set(id, Math.max(last.get(id) ?? 0, baseline.get(id)!));
      return [...last].map(([orderId, seq]) => ({ orderId, seq }));
    };
    follow(socket, follower, BOARD_UPDATES, () => (follower.generation === 0 ? {} : { after: resumePoint() }), 'storeOrderUpdates');
  });
  await sleep(3000); // the streams' first catch-up read is 1 s after subscribing
  const { rows: seqs } = await db.query<{ id: number; seq: number }>(
    `select id, last_event_seq as seq from orders where id = any($1::int[])`,
    [[...tracked.keys()]],
  );
  for (const r of seqs) baseline.set(r.id, r.seq);
  if (args.redis === 'down') {
    redis.process.kill('SIGKILL');
    await sleep(500);
  }
  console.log(
    `followers: ${customerSockets.size} customers and ${stores.length} boards on 2 instances; Redis ${args.redis}; ` +
      `load average ${load()}; ${SECONDS} s of peak`,
  );

  // The load.
  const count = { positions: 0, positionsRefused: 0, positionsSkipped: 0, checkouts: 0, checkoutsFailed: 0, steps: 0, stepsFailed: 0 };
  const rss: { t: number; mb: (number | null)[] }[] = [];
  const loadBefore = os.loadavg()[0];
  // CPU over the load: each instance, this process (the simulator, on the same cores), the run's
  // Redis, the instances' PostgreSQL backends (by application_name), and the whole machine.
  // Backends are looked for every second: a pool opens connections during the load too (one
  // opened after its start counts all its CPU; one closed counts its last reading).
  const pgPids = new Set<number>();
  const findBackends = async () => {
    const { rows } = await db.query<{ pid: number }>(`select pid from pg_stat_activity where application_name like $1`, [
      `peak-${process.pid} %`,
    ]);
    for (const r of rows) pgPids.add(r.pid);
  };
  await findBackends();
  const backendsAtStart = pgPids.size;
  // A process gone (an instance killed, its backends) counts with its last reading (taken every second and before a kill).
  const lastCpu = new Map<number, number>();
  const cpuKept = (pids: number[]) =>
    pids.reduce((sum, pid) => {
      const now = cpuSeconds([pid]);
      if (now > 0 || !lastCpu.has(pid)) lastCpu.set(pid, now);
      return sum + lastCpu.get(pid)!;
    }, 0);
  const cpuOf = () => ({
    instances: instances.map((i) => cpuKept([i.process.pid!])),
    simulator: process.cpuUsage(),
    redis: cpuKept([redis.process.pid!]),
    postgres: cpuKept([...pgPids]),
    machine: machineCpu(),
  });
  if (heapDir) await heapSnapshots(heapDir, instances, 'before the load');
  const stopSelfProfile = args.profile ? await profileSelf(args.profile) : undefined;
  if (args.profile) for (const instance of instances) instance.process.kill('SIGUSR2');
  const cpu0 = cpuOf();
  measuring = true;
  const until = Date.now() + SECONDS * 1000;
  const inFlight = new Set<Promise<void>>();
  const spawnTask = (task: () => Promise<void>) => {
    const p = task()
      .catch(() => undefined)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  let positionsInFlight = 0;
  const tick = 50;
  let customerCursor = 0;
  let stepBudget = 0;
  let checkoutBudget = 0;
  const t0 = Date.now();
  loadStartedAt = t0;
  let killedAt: number | undefined;
  for (let now = Date.now(), slot = 0; now < until; now = Date.now(), slot++) {
    if (args.kill && killedAt === undefined && now - t0 >= (SECONDS * 1000) / 2) {
      killedAt = Math.round((now - t0) / 1000);
      cpuOf();
      dead.add(1);
      instances[1].process.kill('SIGKILL');
      console.log(`killed the second instance (SIGKILL) at ${killedAt} s; load average ${load()}`);
    }
    // Positions: driver k reports at k/N of each period, within ~40 m of their store.
    const periodSlots = (EVERY_S * 1000) / tick;
    for (let k = slot % periodSlots; k < drivers.length; k += periodSlots) {
      const d = drivers[k];
      if (positionsInFlight >= 256) {
        count.positionsSkipped += 1;
        continue;
      }
      positionsInFlight += 1;
      const jitter = () => (rnd.next() - 0.5) * 0.0008;
      const latitude = +(d.home.lat + jitter()).toFixed(6);
      const longitude = +(d.home.lng + jitter()).toFixed(6);
      positionSent.set(positionKey(d.driverId, latitude, longitude), Date.now());
      spawnTask(async () => {
        try {
          const answer = await call(base(k), 'POST', '/api/v1/driver/location', d.token, { latitude, longitude });
          if (answer.status === 200) count.positions += 1;
          else count.positionsRefused += 1;
        } finally {
          positionsInFlight -= 1;
        }
      });
    }
    // New checkouts, each followed by its customer on their socket.
    for (checkoutBudget += (CHECKOUTS_PER_SECOND * tick) / 1000; checkoutBudget >= 1; checkoutBudget -= 1) {
      const customer = customers[customerCursor++ % customers.length];
      spawnTask(async () => {
        const placed = await call(base(customerCursor), 'POST', '/api/v1/customer/orders', customer.token, cartOf(customer, rnd), {
          'idempotency-key': randomUUID(),
        });
        if (placed.status !== 201) return void (count.checkoutsFailed += 1);
        count.checkouts += 1;
        const orderId = placed.body.data.order_id as number;
        baseline.set(orderId, 0);
        tracked.set(orderId, { orderId, customer, status: 'pending_acceptance', busy: false });
        followOrder(customerSockets.get(customer.userId)!, orderId);
      });
    }
    // Steps: a random order moves one step, by its store or its driver.
    for (stepBudget += (STEPS_PER_SECOND * tick) / 1000; stepBudget >= 1; stepBudget -= 1) {
      const open = [...tracked.values()].filter((o) => !o.busy && o.status !== 'delivered');
      if (open.length === 0) break;
      const order = open[Math.floor(rnd.next() * open.length)];
      order.busy = true;
      spawnTask(async () => {
        try {
          await step(order);
        } finally {
          order.busy = false;
        }
      });
    }
    if (slot % (5000 / tick) === 0) rss.push({ t: Math.round((Date.now() - t0) / 1000), mb: instances.map((i) => rssMb(i)) });
    if (slot % (1000 / tick) === 0) void findBackends().then(cpuOf, () => undefined);
    await sleep(Math.max(0, t0 + (slot + 1) * tick - Date.now()));
  }
  const elapsed = (Date.now() - t0) / 1000;
  await findBackends().catch(() => undefined);
  const cpu1 = cpuOf();
  rss.push({ t: Math.round((Date.now() - t0) / 1000), mb: instances.map((i) => rssMb(i)) });
  if (args.profile) for (const [k, instance] of instances.entries()) if (!dead.has(k)) instance.process.kill('SIGUSR2');
  await stopSelfProfile?.();
  if (heapDir)
    await heapSnapshots(
      heapDir,
      instances.filter((_, k) => !dead.has(k)),
      'at the end of the load',
    );
  await Promise.all(inFlight);
  const loadAfter = os.loadavg()[0];

  async function step(order: Tracked): Promise<void> {
    const owner = owners.get(order.customer.storeId)!;
    const byStore: Record<string, [string, string]> = {
      pending_acceptance: ['accept', 'accepted'],
      accepted: ['preparing', 'preparing'],
      preparing: ['ready', 'ready_for_pickup'],
    };
    let answer: { status: number };
    let next: string;
    if (byStore[order.status]) {
      const [path, status] = byStore[order.status];
      answer = await call(base(order.orderId), 'POST', `/api/v1/store/orders/${order.orderId}/${path}`, owner);
      next = status;
    } else {
      const { rows } = await db.query<{ driver_id: number | null }>(`select driver_id from orders where id = $1`, [order.orderId]);
      const token = rows[0]?.driver_id == null ? undefined : driverToken.get(rows[0].driver_id);
      if (!token) return; // no driver of the run carries it (yet)
      const [path, status] = order.status === 'ready_for_pickup' ? ['pickup', 'picked_up'] : ['deliver', 'delivered'];
      answer = await call(base(order.orderId + 1), 'POST', `/api/v1/driver/orders/${order.orderId}/${path}`, token);
      next = status;
    }
    if (answer.status === 200) {
      order.status = next;
      count.steps += 1;
    } else count.stepsFailed += 1;
  }

  // Drain: every follower should now hold every event stored after its baseline, once.
  const ids = [...tracked.keys()];
  const expectedOf = async () => {
    const { rows } = await db.query<{ order_id: number; seq: number }>(
      `select order_id, seq from order_events where order_id = any($1::int[]) order by order_id, seq`,
      [ids],
    );
    const byOrder = new Map<number, number[]>();
    for (const r of rows) if (r.seq > (baseline.get(r.order_id) ?? 0)) byOrder.set(r.order_id, [...(byOrder.get(r.order_id) ?? []), r.seq]);
    return byOrder;
  };
  const missing = (expected: Map<number, number[]>, kind?: Follower['kind']): number =>
    followers.reduce(
      (sum, { follower, orderIds }) =>
        kind !== undefined && follower.kind !== kind
          ? sum
          : sum + orderIds().reduce((n, id) => n + (expected.get(id) ?? []).filter((seq) => !follower.seen.has(`${id}:${seq}`)).length, 0),
      0,
    );
  const expected = await expectedOf();
  const drainStarted = Date.now();
  while (missing(expected) > 0 && Date.now() - drainStarted < 15_000) await sleep(250);
  measuring = false;
  const lost = missing(expected);
  const lostByCustomers = missing(expected, 'customer');
  resuming = false;
  let duplicated = 0;
  let delivered = 0;
  for (const { follower, orderIds } of followers) {
    for (const id of orderIds()) {
      for (const seq of expected.get(id) ?? []) {
        if (follower.seen.has(`${id}:${seq}`)) delivered += 1;
      }
    }
  }
  for (const { follower } of followers) duplicated += follower.duplicated;
  const streamErrors = followers.reduce((n, f) => n + f.follower.errors, 0);

  const event = percentiles(lags.event);
  const position = percentiles(lags.position);
  const positionFromReceipt = percentiles(lags.positionFromReceipt);
  const perSecond = (n: number) => (n / elapsed).toFixed(1);
  console.log(
    `\npeak: ${tracked.size} orders (${ORDERS} active at the start), ${customerSockets.size} customers and ${stores.length} boards following, ` +
      `2 instances${killedAt === undefined ? '' : ` (the second killed at ${killedAt} s)`}, Redis ${args.redis}, ${elapsed.toFixed(0)} s; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} ` +
      `(${os.cpus().length} cores, node ${process.version})\n`,
  );
  console.log('| figure | value | goal |\n|---|---|---|');
  console.log(
    `| event lag, commit → follower, p50 / p99 | ${event.p50} / ${event.p99} ms (${event.n} deliveries) | p99 ≤ 500 ms: ${event.p99 <= 500 ? 'met' : '**not met**'} |`,
  );
  console.log(
    `| position lag, report sent → follower, p50 / p99 | ${position.p50} / ${position.p99} ms (${position.n} live positions; ` +
      `from the instance's receipt: ${positionFromReceipt.p50} / ${positionFromReceipt.p99} ms) | within 1 s: ${position.p99 <= 1000 ? 'met' : '**not met**'} (p99) |`,
  );
  console.log(
    `| positions not in the lag | ${resentPositions} stored ones resent on subscribe (a resume, a new order's follower), ${unmatchedPositions} not sent by this run | |`,
  );
  console.log(
    `| positions answered | ${perSecond(count.positions)}/s (asked ${(drivers.length / EVERY_S).toFixed(0)}/s; ${count.positionsRefused} refused, ${count.positionsSkipped} not sent: 256 in flight) | |`,
  );
  console.log(`| checkouts | ${perSecond(count.checkouts)}/s (${count.checkoutsFailed} failed) | |`);
  console.log(`| store and driver steps | ${perSecond(count.steps)}/s (${count.stepsFailed} refused) | |`);
  const reasons = [...streamErrorReasons].map(([why, n]) => `${n} × ${why}`).join('; ');
  console.log(
    `| events delivered to followers | ${delivered} (${streamErrors} stream errors, each followed by a resume${reasons ? `: ${reasons}` : ''}) | |`,
  );
  console.log(
    `| events lost | ${lost} (customers ${lostByCustomers}, boards ${lost - lostByCustomers}) | 0: ${lost === 0 ? 'met' : '**not met**'} |`,
  );
  console.log(`| events duplicated | ${duplicated} | 0: ${duplicated === 0 ? 'met' : '**not met**'} |`);
  const coreShare = (seconds: number) => `${seconds.toFixed(1)} s (${((100 * seconds) / elapsed).toFixed(0)} % of a core)`;
  const simulatorCpu = (cpu1.simulator.user - cpu0.simulator.user + cpu1.simulator.system - cpu0.simulator.system) / 1e6;
  const instancesCpu = cpu1.instances.map((c, k) => c - cpu0.instances[k]);
  const machineBusy = cpu1.machine.busy - cpu0.machine.busy;
  const machineTotal = cpu1.machine.total - cpu0.machine.total;
  const ours = simulatorCpu + instancesCpu.reduce((a, b) => a + b, 0) + (cpu1.redis - cpu0.redis) + (cpu1.postgres - cpu0.postgres);
  console.log(
    `\nCPU over the ${elapsed.toFixed(0)} s of load: instances ${instancesCpu.map(coreShare).join(', ')}; ` +
      `the simulator (this process) ${coreShare(simulatorCpu)}, ${((1000 * simulatorCpu) / Math.max(1, count.positions + count.checkouts + count.steps)).toFixed(2)} ms per request answered; Redis ${coreShare(cpu1.redis - cpu0.redis)}; ` +
      `PostgreSQL (the instances' backends: ${pgPids.size}, ${backendsAtStart} of them at the start) ${coreShare(cpu1.postgres - cpu0.postgres)}; ` +
      `the machine ${((100 * machineBusy) / machineTotal).toFixed(0)} % busy of ${os.cpus().length} cores ` +
      `(this run ${((100 * ours) / machineTotal).toFixed(0)} %, the rest ${((100 * (machineBusy - ours)) / machineTotal).toFixed(0)} %); ` +
      `instances' CPU per position answered ${((1000 * instancesCpu.reduce((a, b) => a + b, 0)) / Math.max(1, count.positions)).toFixed(2)} ms (all their work ÷ positions)`,
  );
  console.log(
    `\nOutbound channels: ${channels ? `WhatsApp at a local fake (${channels.received()} messages answered)` : 'WhatsApp at its default address (unreachable here)'}`,
  );
  console.log(
    `\nRSS MB per instance every 5 s: ${rss.map((r) => `${r.t}s ${r.mb.map((m) => m?.toFixed(0) ?? '?').join('/')}`).join(', ')}`,
  );
  if (memoryDir) printHeap(`${memoryDir}/memory.jsonl`, instances, loadStartedAt, Date.now());

  for (const line of lines.values()) void line.client.then((client) => client.dispose()).catch(() => undefined);
  for (const instance of instances) stopServer(instance);
  redis.process.kill('SIGKILL');
  await db.end();
  process.exitCode = lost > 0 || duplicated > 0 ? 1 : 0;
  // Sockets of the boards and the streams' timers: nothing else is owed.
  setTimeout(() => process.exit(process.exitCode), 500).unref();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
