/**
 * The live-tracking fan-out section of `npm run bench` (issue 26): `--paths fanout`.
 *
 * Followers are plain `ws` sockets in this process speaking graphql-transport-ws by hand (the
 * same client code reads both servers), each with one `orderUpdates` subscription. Orders are
 * inserted straight into the bench city (already accepted, one customer each); the store's owner
 * moves them with `POST /api/v1/store/orders/:id/preparing` and `.../ready`. An event's age at a
 * follower is the time it arrived minus its `at` (the event row's `created_at`, taken in the
 * move's transaction: the age includes the rest of that transaction and the commit).
 *
 * The reference is a bare `ws` server (scripts/bench-servers.ts `ws-broadcast`) that, asked
 * over HTTP, stamps `at` with its clock, serialises the same message once and sends it to every
 * socket: the floor of a broadcast on this machine, in the same run, read by the same client.
 *
 * Three figures:
 *   1. one event to N followers of one order (default 1,000), p50/p99 of the ages over several
 *      events, against the bare broadcast's (goal: p99 ≤ 2×);
 *   2. memory per open socket with one subscription: the server's RSS growth over the N sockets
 *      (and the bare server's, the floor);
 *   3. 10 × 1,000 followers (ten orders, one customer each) on one instance, the ten orders
 *      moved together: the oldest event any follower got (goal: ≤ 1 s), and none lost.
 * Every follower must receive every event once, in seq order: lost or duplicated ones are counted.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Client } from 'pg';
import WebSocket from 'ws';
import { benchSigner } from './bench-drivers';

export interface FanoutServer {
  url: string;
  pid: number;
  stop(): void;
}

export interface FanoutOptions {
  databaseUrl: string;
  /** Followers of the one order (figure 1 and 2). */
  followers: number;
  /** Orders of figure 3, each with `followers` followers (0: skipped). */
  orders: number;
  /** Events measured in figure 1 (two per order: preparing, ready). */
  events: number;
  start: (kind: 'service' | 'ws-broadcast', env: NodeJS.ProcessEnv) => Promise<FanoutServer>;
  rssMb: (pid: number) => number | null;
  env: NodeJS.ProcessEnv;
}

/** The limits a bench service runs with: 1,000 sockets of one customer from one address. */
export const FANOUT_ENV = {
  WS_MAX_SOCKETS_PER_USER: '1000',
  WS_MAX_SOCKETS_PER_IP: '100000',
  WS_CONNECTIONS_PER_IP_PER_MINUTE: '1000000',
} as const;

const QUERY = `subscription($orderId: Int!, $afterSeq: Int) {
  orderUpdates(orderId: $orderId, afterSeq: $afterSeq) { orderId seq type status at driverId latitude longitude }
}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Follower {
  socket: WebSocket;
  /** seq -> arrivals of it (more than one is a duplicate). */
  seen: Map<number, number>;
  lastSeq: number;
  disorder: number;
  ages: number[];
  /** The order followed (the service's followers). */
  orderId?: number;
}

/**
 * Where opening a follower's socket spends its time, per socket, ms: the upgrade (open), the
 * `connection_init` until its ack (the token, the socket's lease), the subscribe until its two
 * stored events (the order's check, its feed).
 */
export interface OpenPhases {
  upgrade: number[];
  init: number[];
  subscribe: number[];
}
const newPhases = (): OpenPhases => ({ upgrade: [], init: [], subscribe: [] });
/** BENCH_OPEN_PER_CUSTOMER: sockets each customer opens at once (default 2). */
function openPerCustomer(): number {
  const n = Number(process.env.BENCH_OPEN_PER_CUSTOMER ?? 2);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_OPEN_PER_CUSTOMER must be a whole number of 1 or more, not "${process.env.BENCH_OPEN_PER_CUSTOMER}"`);
  return n;
}
let phases = newPhases();

/** Sockets or subscriptions refused while being set up and tried again (a busy service answers 503-like errors). */
let retries = 0;
/** Store steps answered 503 (busy) and sent again. */
let stepRetries = 0;

/** Opens `count` sockets, `concurrency` at a time; `init` runs once each is open. A refused one is tried again. */
async function openSockets(
  url: string,
  count: number,
  concurrency: number,
  init: (socket: WebSocket, k: number) => void | Promise<void>,
): Promise<WebSocket[]> {
  const sockets: WebSocket[] = new Array<WebSocket>(count);
  let next = 0;
  const attempt = async (k: number) => {
    const started = Date.now();
    const socket = new WebSocket(url, 'graphql-transport-ws', { perMessageDeflate: false });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => {
          phases.upgrade.push(Date.now() - started);
          resolve();
        });
        socket.once('error', reject);
        socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      });
      await init(socket, k);
      sockets[k] = socket;
    } catch (error) {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      throw error;
    }
  };
  const worker = async () => {
    while (next < count) {
      const k = next++;
      for (let tries = 1; ; tries++) {
        try {
          await attempt(k);
          break;
        } catch (error) {
          if (tries >= 10) throw error;
          retries += 1;
          await sleep(500 * tries);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return sockets;
}

/** Sockets following orders on the service: `perOrder` for each order, each socket of the order's customer. */
export async function followService(url: string, orders: { id: number; token: string }[], perOrder: number): Promise<Follower[]> {
  const followers: Follower[] = [];
  // Two at a time per customer (BENCH_OPEN_PER_CUSTOMER): a customer's sockets take their lease one
  // after the other (socket-leases.ts: one statement under the user's lock); 8 opened no faster.
  const concurrency = openPerCustomer() * orders.length;
  await openSockets(`${url.replace('http', 'ws')}/graphql`, orders.length * perOrder, concurrency, async (socket, k) => {
    const order = orders[k % orders.length];
    const follower: Follower = { socket, seen: new Map(), lastSeq: 0, disorder: 0, ages: [], orderId: order.id };
    let id = 0;
    let initSent = 0;
    let subscribeSent = 0;
    const subscribe = () => {
      subscribeSent = Date.now();
      socket.send(JSON.stringify({ id: String(++id), type: 'subscribe', payload: { query: QUERY, variables: { orderId: order.id } } }));
    };
    await new Promise<void>((resolve, reject) => {
      socket.on('close', (code, reason) => reject(new Error(`socket closed ${code} ${reason.toString()}`)));
      socket.on('message', (data) => {
        const message = JSON.parse((data as Buffer).toString()) as {
          type: string;
          payload?: { data?: { orderUpdates: { seq: number; at: string } } };
        };
        if (message.type === 'connection_ack') {
          phases.init.push(Date.now() - initSent);
          subscribe();
        } else if (message.type === 'next') {
          if (!message.payload?.data) return reject(new Error(`an answer without data: ${JSON.stringify(message.payload)}`));
          const update = message.payload.data.orderUpdates;
          receive(follower, update.seq, update.at);
          if (follower.seen.size === 2) {
            phases.subscribe.push(Date.now() - subscribeSent);
            resolve(); // the two stored events: the subscription is live
          }
        } else if (message.type === 'error') {
          // Refused while busy (UNAVAILABLE): a client subscribes again a moment later.
          if (id >= 10) return reject(new Error(JSON.stringify(message.payload)));
          retries += 1;
          setTimeout(subscribe, 1000);
        }
      });
      initSent = Date.now();
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${order.token}` } }));
    });
    followers.push(follower);
  });
  return followers;
}

function receive(follower: Follower, seq: number, at: string): void {
  follower.ages.push(Date.now() - Date.parse(at));
  follower.seen.set(seq, (follower.seen.get(seq) ?? 0) + 1);
  if (seq < follower.lastSeq) follower.disorder += 1;
  follower.lastSeq = Math.max(follower.lastSeq, seq);
}

/** Sockets of the bare server: every message counts as the next seq. */
async function followBare(url: string, count: number): Promise<Follower[]> {
  const followers: Follower[] = [];
  await openSockets(`${url.replace('http', 'ws')}/`, count, 2, (socket) => {
    const follower: Follower = { socket, seen: new Map(), lastSeq: 0, disorder: 0, ages: [] };
    followers.push(follower);
    socket.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString()) as { payload: { data: { orderUpdates: { seq: number; at: string } } } };
      const update = message.payload.data.orderUpdates;
      receive(follower, update.seq, update.at);
    });
  });
  return followers;
}

/** A process's CPU time so far (user + system, Linux /proc; 100 ticks a second), in ms. */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const subtract = (a: number | null, b: number | null) => (a !== null && b !== null ? a - b : null);

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

function ages(followers: Follower[], fromIndex: number): number[] {
  return followers.flatMap((f) => f.ages.slice(fromIndex)).sort((a, b) => a - b);
}

/** Waits until every follower has `count` distinct events (or 15 s). */
async function arrived(followers: Follower[], count: number): Promise<boolean> {
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    if (followers.every((f) => f.seen.size >= count)) return true;
    await sleep(10);
  }
  return false;
}

function faults(followers: Follower[], expected: number) {
  let lost = 0;
  let duplicated = 0;
  let disorder = 0;
  for (const f of followers) {
    lost += Math.max(0, expected - f.seen.size);
    for (const n of f.seen.values()) duplicated += n - 1;
    disorder += f.disorder;
  }
  return { lost, duplicated, disorder };
}

/** Bench customers, their orders (accepted, at one store) and the store owner's token. */
export async function prepareOrders(databaseUrl: string, count: number) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await removeOrders(client);
    const phones = Array.from({ length: count }, (_, k) => `+2126100${String(k).padStart(5, '0')}`);
    await client.query(
      `insert into users (phone_number, first_name, last_name)
       select p, 'Bench', 'Follower ' || right(p, 5) from unnest($1::text[]) p on conflict (phone_number) do nothing`,
      [phones],
    );
    const { rows: users } = await client.query<{ id: number }>(
      `select id from users where phone_number = any($1::text[]) order by phone_number`,
      [phones],
    );
    const {
      rows: [store],
    } = await client.query<{ id: number; owner_id: number; latitude: number; longitude: number }>(
      `select id, owner_id, latitude, longitude from stores where is_active and owner_id is not null order by id limit 1`,
    );
    const token = benchSigner(databaseUrl);
    const orders: { id: number; token: string }[] = [];
    for (const user of users) {
      const {
        rows: [order],
      } = await client.query<{ id: number }>(
        `insert into orders (user_id, store_id, status, subtotal_cents, delivery_fee_cents, total_cents, address_label, address_line1,
           address_latitude, address_longitude, last_event_seq)
         values ($1, $2, 'accepted', 5000, 1000, 6000, 'Bench', '1 Rue du Bench', $3, $4, 2) returning id`,
        [user.id, store.id, store.latitude, store.longitude],
      );
      await client.query(
        `insert into order_events (order_id, seq, type, status) values ($1, 1, 'status', 'pending_acceptance'), ($1, 2, 'status', 'accepted')`,
        [order.id],
      );
      orders.push({ id: order.id, token: token(user.id) });
    }
    return { orders, ownerToken: token(store.owner_id) };
  } finally {
    await client.end();
  }
}

/** The bench's orders (and with them their events and outbox rows) go: the positions path must not dispatch them. */
export async function removeOrders(client: Client): Promise<void> {
  // The outbox has no foreign key to its orders (migration outbox_targets): its rows go by name.
  await client.query(
    `delete from notification_outbox where order_id in (select o.id from orders o join users u on u.id = o.user_id where u.phone_number like '+2126100%')`,
  );
  await client.query(`delete from orders where user_id in (select id from users where phone_number like '+2126100%')`);
  await client.query(`delete from socket_leases where user_id in (select id from users where phone_number like '+2126100%')`);
}

/** A store step, tried again on 503 after its Retry-After (as the store's app does). */
async function step(url: string, ownerToken: string, orderId: number, name: 'preparing' | 'ready'): Promise<void> {
  for (let tries = 1; ; tries++) {
    const res = await fetch(`${url}/api/v1/store/orders/${orderId}/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken}` },
    });
    if (res.status === 200) return;
    const body = await res.text();
    if (res.status !== 503 || tries >= 20) throw new Error(`${name} ${orderId}: ${res.status} ${body}`);
    stepRetries += 1;
    await sleep(1000 * Number(res.headers.get('retry-after') ?? 1));
  }
}

const closeAll = async (followers: Follower[]) => {
  await Promise.all(
    followers.map(
      (f) =>
        new Promise<void>((resolve) => {
          f.socket.removeAllListeners('close');
          if (f.socket.readyState === WebSocket.CLOSED) return resolve();
          f.socket.once('close', () => resolve());
          f.socket.terminate();
        }),
    ),
  );
};

export interface FanoutResult {
  followers: number;
  events: number;
  service: { p50: number; p99: number; max: number; kbPerSocket: number | null; lost: number; duplicated: number; disorder: number };
  bare: { p50: number; p99: number; max: number; kbPerSocket: number | null };
  /** The bare broadcast to as many sockets as the big run's followers. */
  bigBare?: { p50: number; p99: number; max: number; kbPerSocket: number | null };
  big?: {
    followers: number;
    p50: number;
    p99: number;
    max: number;
    kbPerSocket: number | null;
    /** The service's CPU time from the first step to the last arrival (both events, the steps' requests included). */
    cpuMs: number | null;
    /** Opening the followers' sockets and subscriptions: wall time, the service's CPU time, each socket's phases. */
    open: { seconds: number; cpuMs: number | null; phases: OpenPhases };
    /** Each store step's request, sent to answered (its transaction, commit, publish). */
    stepMs: number[];
    /** Per event: its age at its first follower, and oldest − first. */
    firstAndSpread: { first: number; spread: number }[];
    lost: number;
    duplicated: number;
    disorder: number;
  };
  load: [number, number];
  /** Sockets and subscriptions refused while being set up, then tried again. */
  retries: number;
  stepRetries: number;
}

/** Figure 1 and 2 on the bare server: `events` broadcasts to `count` sockets. */
async function bareRun(o: FanoutOptions, count: number, events: number) {
  const server = await o.start('ws-broadcast', o.env);
  try {
    await sleep(300);
    const before = o.rssMb(server.pid);
    const followers = await followBare(server.url, count);
    await sleep(500);
    const after = o.rssMb(server.pid);
    for (let k = 1; k <= events; k++) {
      await fetch(`${server.url}/broadcast?seq=${k}`, { method: 'POST' });
      await arrived(followers, k);
      await sleep(100);
    }
    const sorted = ages(followers, 0);
    await closeAll(followers);
    return {
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      max: sorted.at(-1)!,
      kbPerSocket: before !== null && after !== null ? ((after - before) * 1024) / count : null,
    };
  } finally {
    server.stop();
  }
}

/** Figures 1 and 2 on the service: `events` events (two per order) to `count` followers of each order in turn. */
async function serviceRun(o: FanoutOptions, count: number, events: number) {
  const rounds = Math.ceil(events / 2);
  const server = await o.start('service', { ...o.env, ...FANOUT_ENV });
  const client = new Client({ connectionString: o.databaseUrl });
  await client.connect();
  try {
    const world = await prepareOrders(o.databaseUrl, rounds + 1);
    // Warm-up: a few followers and one event, so the first measured one is not the JIT's.
    const warm = await followService(server.url, [world.orders[0]], 5);
    await step(server.url, world.ownerToken, world.orders[0].id, 'preparing');
    await arrived(warm, 3);
    await closeAll(warm);
    await sleep(500);
    const before = o.rssMb(server.pid);
    let measured: number[] = [];
    const totals = { lost: 0, duplicated: 0, disorder: 0 };
    let kbPerSocket: number | null = null;
    for (let r = 1; r < rounds + 1 && r < world.orders.length; r++) {
      const order = world.orders[r];
      const followers = await followService(server.url, [order], count);
      await sleep(500);
      if (r === 1) {
        const after = o.rssMb(server.pid);
        kbPerSocket = before !== null && after !== null ? ((after - before) * 1024) / count : null;
      }
      await step(server.url, world.ownerToken, order.id, 'preparing');
      await arrived(followers, 3);
      await sleep(100);
      await step(server.url, world.ownerToken, order.id, 'ready');
      await arrived(followers, 4);
      // The two replayed events are not fan-out: only the live ones count.
      measured = measured.concat(ages(followers, 2));
      const f = faults(followers, 4);
      totals.lost += f.lost;
      totals.duplicated += f.duplicated;
      totals.disorder += f.disorder;
      await closeAll(followers);
      await sleep(300);
    }
    measured.sort((a, b) => a - b);
    return {
      p50: percentile(measured, 0.5),
      p99: percentile(measured, 0.99),
      max: measured.at(-1)!,
      kbPerSocket,
      ...totals,
      events: measured.length / count,
    };
  } finally {
    await removeOrders(client);
    await client.end();
    server.stop();
  }
}

/** Figure 3: `orders` orders with `perOrder` followers each, all moved together. */
async function bigRun(o: FanoutOptions, orders: number, perOrder: number) {
  const server = await o.start('service', { ...o.env, ...FANOUT_ENV });
  const client = new Client({ connectionString: o.databaseUrl });
  await client.connect();
  try {
    const world = await prepareOrders(o.databaseUrl, orders);
    await sleep(500);
    const before = o.rssMb(server.pid);
    // BENCH_CPU_PROFILE with BENCH_PROFILE_OPEN=1: the profile of opening the sockets instead of the fan-outs.
    const profilingOpen = Boolean(o.env.BENCH_CPU_PROFILE) && o.env.BENCH_PROFILE_OPEN === '1';
    if (profilingOpen) process.kill(server.pid, 'SIGUSR2');
    phases = newPhases();
    const openStarted = Date.now();
    const openCpuBefore = cpuMs(server.pid);
    const followers = await followService(server.url, world.orders, perOrder);
    const open = { seconds: (Date.now() - openStarted) / 1000, cpuMs: subtract(cpuMs(server.pid), openCpuBefore), phases };
    if (profilingOpen) {
      process.kill(server.pid, 'SIGUSR2');
      await sleep(1000); // the profile is written
    }
    await sleep(1000);
    const after = o.rssMb(server.pid);
    // BENCH_CPU_PROFILE (bench-servers.ts): the service's CPU profile of the two fan-outs only.
    const profiling = Boolean(o.env.BENCH_CPU_PROFILE) && !profilingOpen;
    if (profiling) process.kill(server.pid, 'SIGUSR2');
    const cpuBefore = cpuMs(server.pid);
    const stepMs: number[] = [];
    const timedStep = async (id: number, name: 'preparing' | 'ready') => {
      const started = Date.now();
      await step(server.url, world.ownerToken, id, name);
      stepMs.push(Date.now() - started);
    };
    await Promise.all(world.orders.map((order) => timedStep(order.id, 'preparing')));
    await arrived(followers, 3);
    await sleep(200);
    await Promise.all(world.orders.map((order) => timedStep(order.id, 'ready')));
    await arrived(followers, 4);
    const cpuAfter = cpuMs(server.pid);
    if (profiling) {
      process.kill(server.pid, 'SIGUSR2');
      await sleep(1000); // the profile is written
    }
    const sorted = ages(followers, 2);
    const f = faults(followers, 4);
    // Per event (an order's step): the age at its first follower (the step's transaction, its
    // commit, the publish and the first write) and its spread (oldest − first: the fan-out).
    const firstAndSpread: { first: number; spread: number }[] = [];
    for (const order of world.orders) {
      for (const index of [2, 3]) {
        const of = followers.filter((x) => x.orderId === order.id && x.ages.length > index).map((x) => x.ages[index]);
        if (of.length) firstAndSpread.push({ first: Math.min(...of), spread: Math.max(...of) - Math.min(...of) });
      }
    }
    await closeAll(followers);
    return {
      followers: followers.length,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      max: sorted.at(-1)!,
      kbPerSocket: before !== null && after !== null ? ((after - before) * 1024) / followers.length : null,
      cpuMs: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null,
      open,
      stepMs,
      firstAndSpread,
      ...f,
    };
  } finally {
    await removeOrders(client);
    await client.end();
    server.stop();
  }
}

export async function benchFanout(o: FanoutOptions): Promise<FanoutResult> {
  const load0 = os.loadavg()[0];
  // Bare, service, bare: the reference on both sides of the measured run (the machine's load moves).
  const bare1 = await bareRun(o, o.followers, Math.ceil(o.events / 2));
  const service = await serviceRun(o, o.followers, o.events);
  const bare2 = await bareRun(o, o.followers, Math.ceil(o.events / 2));
  const bare = {
    p50: Math.max(bare1.p50, bare2.p50),
    p99: Math.max(bare1.p99, bare2.p99),
    max: Math.max(bare1.max, bare2.max),
    kbPerSocket: bare1.kbPerSocket,
  };
  const big = o.orders > 0 ? await bigRun(o, o.orders, o.followers) : undefined;
  // The floor of the same number of messages at once: one broadcast to as many bare sockets, twice.
  const bigBare = big ? await bareRun(o, o.orders * o.followers, 2) : undefined;
  return {
    followers: o.followers,
    events: service.events,
    service,
    bare,
    big,
    bigBare,
    load: [load0, os.loadavg()[0]],
    retries,
    stepRetries,
  };
}

const f0 = (n: number | null) => (n === null ? '?' : n.toFixed(0));

export function printFanout(r: FanoutResult): void {
  const ratio = r.service.p99 / r.bare.p99;
  console.log(
    `\nLive-tracking fan-out (issue 26): one order's events to ${r.followers} followers (one socket and one subscription each), ` +
      `${r.events} events; age = arrival − the event's time; load average ${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)}\n`,
  );
  console.log(
    '| run | p50 ms | p99 ms | max ms | p99 ÷ bare ws p99 (goal ≤ 2×) | KB per socket (goal ≤ 30) | lost / duplicated / out of order |',
  );
  console.log('|---|---|---|---|---|---|---|');
  console.log(
    `| bare \`ws\` broadcast (the worse of two runs around the service) | ${r.bare.p50} | ${r.bare.p99} | ${r.bare.max} | 1× | ${f0(r.bare.kbPerSocket)} | |`,
  );
  console.log(
    `| service, ${r.followers} followers of one order | ${r.service.p50} | ${r.service.p99} | ${r.service.max} | ` +
      `${ratio.toFixed(1)}×: ${ratio <= 2 ? 'met' : '**not met**'} | ${f0(r.service.kbPerSocket)}: ${r.service.kbPerSocket !== null && r.service.kbPerSocket <= 30 ? 'met' : '**not met**'} | ` +
      `${r.service.lost} / ${r.service.duplicated} / ${r.service.disorder} |`,
  );
  if (r.big && r.bigBare) {
    const b = r.big;
    const f = r.bigBare;
    console.log(
      `| bare \`ws\` broadcast to ${b.followers} sockets (the same number of messages at once) | ${f.p50} | ${f.p99} | ${f.max} | | ${f0(f.kbPerSocket)} | |`,
    );
    console.log(
      `| service, ${b.followers} followers (${b.followers / r.followers} orders moved together) | ${b.p50} | ${b.p99} | ${b.max} (goal ≤ 1,000: ${b.max <= 1000 ? 'met' : '**not met**'}) | | ` +
        `${f0(b.kbPerSocket)}: ${b.kbPerSocket !== null && b.kbPerSocket <= 30 ? 'met' : '**not met**'} | ${b.lost} / ${b.duplicated} / ${b.disorder} |`,
    );
    console.log(
      `\nThe service's CPU time (user + system) from the first step to the last arrival of the ${b.followers} followers' two events: ${f0(b.cpuMs)} ms`,
    );
    const phase = (values: number[]) => {
      const sorted = [...values].sort((x, y) => x - y);
      return `p50 ${percentile(sorted, 0.5)} / p99 ${percentile(sorted, 0.99)} ms`;
    };
    const range = (values: number[]) => (values.length ? `${Math.min(...values)}–${Math.max(...values)} ms` : '?');
    console.log(
      `Where an event's age goes (${b.firstAndSpread.length} events): its age at its first follower ${range(b.firstAndSpread.map((x) => x.first))}, ` +
        `its spread to the last (oldest − first) ${range(b.firstAndSpread.map((x) => x.spread))}; the store steps' requests ${range(b.stepMs)}`,
    );
    console.log(
      `Opening the ${b.followers} followers (${openPerCustomer() * (b.followers / r.followers)} at a time): ${b.open.seconds.toFixed(1)} s, the service's CPU ${f0(b.open.cpuMs)} ms; ` +
        `per socket: upgrade ${phase(b.open.phases.upgrade)}, connection_init → ack ${phase(b.open.phases.init)}, subscribe → live ${phase(b.open.phases.subscribe)}`,
    );
  }
}
