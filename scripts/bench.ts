/**
 * Benchmark by ratios, not fixed targets (issue 9; docs/decisions.md "Benchmark"):
 *   npm run bench -- [--stores 10000,100000] [--duration 10] [--connections 32]
 *                    [--paths nearby,home] [--plans compact|full|none] [--cache on|off] [--smoke]
 * For each city size it builds (once) a demo city in `<DATABASE_URL's db>_bench_<stores>`,
 * prints the plan of every statement one request of each path sends (scripts/bench-plans.ts),
 * starts four servers as their own processes (scripts/bench-servers.ts: a bare node:http
 * hello, a bare Express 5 hello, the hand-written twins of the read paths (scripts/bench-twins/:
 * the same statements on `pg`, the same JSON by hand), and the service in production mode),
 * loads each path in turn with autocannon, its twin just before it, and prints one table:
 * req/s, p50, p99, ratio to the Express hello against the issue's goal, cost against the
 * path's twin, RSS, and the machine's load average around the path.
 * Ratios are taken within one run, so a busy machine moves every row alike. Each service path
 * gets a freshly started service, so what a slow path left queued is not billed to the next.
 * `--paths` keeps the paths whose name starts with one of the given words (the hellos always
 * run: every ratio needs them). With several sizes, a last table puts each path's ratio at
 * every size side by side (how cost grows with the city).
 * `--cache off` starts the service with READ_CACHE=off (src/rest/answer-cache.ts): every
 * request is computed, as a city of distinct requests would be; the header says which ran.
 * `positions` (issue 26) is a write: 1,000 driver profiles of the city (scripts/bench-drivers.ts),
 * each request another driver's `POST /api/v1/driver/location` with their token, a point near
 * their home; its twin verifies the token, counts its revocation and sends one UPDATE.
 * `checkouts` (issue 26) is a write too: 1,000 customers of the city (scripts/bench-customers.ts),
 * each request another customer's `POST /api/v1/customer/orders` with a varied cart of their
 * store and a new Idempotency-Key; after its loaded run, the path runs again at half a rate,
 * whose p99 the issue bounds (printed under the table), at both readings of "half that rate"
 * (docs/decisions.md, "Checkout"): half the rate it reached under load, by autocannon
 * (bursts at each second's start) and evenly spaced (`steadyRate`), and half the goal's rate
 * (half its share of the Express hello beside it), evenly spaced; at that rate once more with every
 * request from the bench's own address (the reading before each customer had an address of their
 * own, docs/perf/2026-11-27-checkout-6.md). Its twin (bench-twins/checkout.ts) sends
 * the service's statements by its builders; the comparison sends one request (one key) to both
 * at once, so whichever claims the key second answers the first's order, byte for byte.
 * `fanout` (issue 26; scripts/bench-fanout.ts) is not an autocannon path: one order's events to
 * `--followers` sockets (1,000) beside a bare `ws` broadcast, memory per socket, and
 * `--fanout-orders` (10) orders × `--followers` moved together; `--paths fanout` runs it alone.
 * `--smoke` (CI): 300 stores, 1 s per path, 4 connections, one service for all paths; fails
 * on any error or non-2xx answer, on a statement that cannot be explained, or when a twin's
 * answer (status and body, byte for byte, 30 of its path's URLs) differs from the service's.
 */
import 'reflect-metadata';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { serverDatabase } from '../src/db/admin';
import { CASABLANCA } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';
import { capturePlans, formatPlans, groupDigits } from './bench-plans';
import { BenchDriver, BenchRequest, positionRequests, prepareDrivers } from './bench-drivers';
import { BenchCustomer, checkoutRequests, prepareCustomers } from './bench-customers';
import { BENCH_SERVICE_ENV } from './bench-service-env';
import { startFakeChannels } from './bench-fake-channels';
import { autocannon, prepareCity, rssMb, rssOfPid, Server, ServerKind, startServer, stopServer } from './bench-process';
import { benchFanout, FanoutResult, printFanout } from './bench-fanout';

/** The issue's goals: share of the Express hello's req/s, and the REST path's cost over a hand-written handler. */
const GOAL = { nearby: 25, discovery: 10, reads: 25, handCost: 1.3, nearbyP99Ms: 15, discoveryP99Ms: 25, positions: 20, checkouts: 5 };
/** p99 of checkouts at half the rate they reached under load, ms (issue 26). */
const CHECKOUT_HALF_RATE_P99_MS = 60;
/** Drivers of the driver-positions path (issue 26: 1,000 drivers, each request another one). */
const BENCH_DRIVERS = 1000;
/** Customers of the checkout path, each request another one. */
const BENCH_CUSTOMERS = 1000;

interface BenchPath {
  /** What `--paths` matches (by prefix). */
  id: string;
  name: string;
  kind: ServerKind;
  next: () => string;
  /** A request other than `GET next()` (method, headers, body): the write paths. */
  request?: () => BenchRequest;
  /** Share of the Express hello's req/s the issue asks for, in %. */
  goal?: number;
  /** p99 of one request at a time (no load) the issue asks for, ms. */
  latencyGoal?: number;
  /** The service path a hand-written handler answers like (same URL, same JSON). */
  twin?: string;
  /** p99 the issue bounds at half the rate reached under load, ms: the path runs a second time at that rate. */
  halfRateP99?: number;
  /**
   * The path's requests all from the bench's own address, as the checkouts path sent them before
   * checkout-6: run at half the goal's rate beside the path's own reading, printed beside it.
   */
  oneAddress?: () => BenchRequest;
}

interface Result {
  path: BenchPath;
  rps: number;
  /** req/s of the Express hello measured just before this path (none for the hellos and in a smoke run). */
  baseline?: number;
  /** Answers in the measured seconds, and how many of them were not 2xx (a 503 is fast: it inflates req/s). */
  answers: number;
  non2xx: number;
  /** Requests one at a time (no load): their median and 99th percentile, ms. */
  single: { p50: number; p99: number };
  p50: number;
  p99: number;
  rss: number | null;
  load: [number, number];
  /** The run at half the loaded rate (paths with `halfRateP99`). */
  half?: { rate: number; rps: number; p50: number; p99: number; steady: { answered: number; p50: number; p99: number } };
  /** Evenly spaced at half the goal's rate (half `goal` % of the hello beside it; paths with `halfRateP99` and a goal). */
  halfGoal?: { rate: number; answered: number; p50: number; p99: number; oneAddress?: { answered: number; p50: number; p99: number } };
}

async function cityDatabase(stores: number): Promise<string> {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('npm run bench needs DATABASE_URL (a PostgreSQL server; the bench creates its own database on it)');
  return serverDatabase(server, `bench_${stores}`, 'keep');
}

/**
 * Cancels the queries the bench's servers still run, until none is left: a stopped service's
 * backends finish their statement before noticing the client is gone, and what a warm-up left
 * in flight keeps the database busy; neither may be billed to the next measurement.
 */
async function quietDatabase(databaseUrl: string, appName: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let round = 0; round < 600; round++) {
      const { rows } = await client.query<{ n: number }>(
        `select count(pg_cancel_backend(pid))::int as n from pg_stat_activity
          where (application_name = $1 or application_name like $1 || ' %') and datname = current_database()
            and state = 'active' and pid <> pg_backend_pid()`,
        [appName],
      );
      if (rows[0].n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}

/**
 * Notifications an earlier run's checkouts left pending in the bench database: the services'
 * workers would send them during this run's loads (100,000 of them once, billed to the read paths;
 * docs/perf/2026-11-27-read-paths-2.md). Checkouts of this run still write and send theirs.
 * Then the written tables are vacuumed (`WRITTEN_TABLES`).
 */
async function tidyWrittenTables(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`delete from notification_outbox where status = 'pending'`);
    await client.query(`vacuum (analyze) ${WRITTEN_TABLES.join(', ')}`);
  } finally {
    await client.end();
  }
}

/**
 * The tables the bench's write paths (checkouts, positions) and the services' notification
 * workers churn, vacuumed and analysed before each city's loads, as autovacuum keeps them in a
 * deployment. The bench city is kept from run to run on a server that may run without
 * autovacuum (this project's CI server does), and there the dead rows of every earlier run
 * stayed: the workers' claim walked each processed outbox row's dead index entries, a cost that
 * grew with every run (docs/perf/2026-11-27-checkout-6.md).
 */
const WRITTEN_TABLES = [
  'orders',
  'order_items',
  'order_item_extras',
  'order_events',
  'idempotency_keys',
  'notification_outbox',
  'rate_limits',
  'drivers',
];

/**
 * Requests of a path one at a time, for `seconds` (at least five, at most 200), and their
 * median and 99th percentile (with fewer than 100 requests, the slowest), ms.
 */
async function oneAtATime(url: string, next: () => BenchRequest, seconds: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (times.length < 5 || (times.length < 200 && performance.now() < until)) {
    const started = performance.now();
    const { path: at, ...init } = next();
    await fetch(`${url}${at}`, init).then((r) => r.arrayBuffer());
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)];
  return { p50: at(0.5), p99: at(0.99) };
}

/**
 * `rate` requests a second for `seconds`, evenly spaced (one every 1000/rate ms, each sent when
 * due whatever is still in flight: an open loop), and each answer's time from when it was due.
 * autocannon's `overallRate` sends each connection's share of a second at the second's start
 * (bursts of up to one request per connection) and weighs each answer in its histogram by its
 * own latency (its coordinated-omission correction assumes 1 ms between requests): its p50 and
 * p99 at a fixed rate are a burst's, not a steady rate's (docs/perf/2026-11-27-checkout-2.md).
 */
async function steadyRate(
  url: string,
  next: () => BenchRequest,
  rate: number,
  seconds: number,
): Promise<{ answered: number; failed: number; p50: number; p99: number }> {
  const times: number[] = [];
  let failed = 0;
  const total = Math.max(1, Math.round(rate * seconds));
  const began = performance.now();
  const sends: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const due = began + (k * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { path: at, ...init } = next();
    sends.push(
      fetch(`${url}${at}`, init)
        .then(async (r) => {
          await r.arrayBuffer();
          if (r.status >= 300) failed++;
          else times.push(performance.now() - due);
        })
        .catch(() => {
          failed++;
        }),
    );
  }
  await Promise.all(sends);
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.max(0, Math.ceil(q * times.length) - 1))] ?? NaN);
  return { answered: times.length, failed, p50: at(0.5), p99: at(0.99) };
}

/** Where a run ran: a recorded table says it. */
function machine(postgres: string): string {
  const cpus = os.cpus();
  return (
    `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GB, ` +
    `${os.type()} ${os.release()}, node ${process.version}, PostgreSQL ${postgres}`
  );
}

/** The paths of one city: the hellos, and each of the service's read paths after its hand-written twin. */
function benchPaths(sample: { id: number; slug: string }[], drivers: BenchDriver[], customers: BenchCustomer[]): BenchPath[] {
  // One seed for every size: the same points, sorts, filters and terms at 10 000 and 1 000 000 stores.
  const rnd = new Random(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd.next() * list.length)];
  // Random points across the city (about 25 km around the centre), and the centre (densest).
  const point = () =>
    `lat=${(CASABLANCA.lat + (rnd.next() - 0.5) * 0.45).toFixed(5)}&lng=${(CASABLANCA.lng + (rnd.next() - 0.5) * 0.45).toFixed(5)}`;
  const centre = `lat=${CASABLANCA.lat}&lng=${CASABLANCA.lng}`;
  const sorts = ['distance', 'rating', 'delivery_fee', 'delivery_time'];
  const filters = ['', '&is_open=1', '&free_delivery=1', '&min_rating=4.5', '&has_offer=1', '&radius=3', '&category_id=3'];
  const terms = ['pizza', 'piza', 'burger', 'sushi', 'cafe', 'creme', 'tacos', 'salad', 'pharmacie', 'chicken'];
  const service: BenchPath[] = [
    { id: 'ads', name: 'ads', kind: 'service', next: () => '/api/v1/global/ads', goal: GOAL.reads },
    {
      id: 'nearby-centre',
      name: 'nearby, centre, distance',
      kind: 'service',
      next: () => `/api/v1/stores/nearby?${centre}`,
      goal: GOAL.nearby,
      latencyGoal: GOAL.nearbyP99Ms,
    },
    {
      id: 'nearby-centre-any',
      name: 'nearby, centre, any sort/filter',
      kind: 'service',
      next: () => `/api/v1/stores/nearby?${centre}&sort=${pick(sorts)}${pick(filters)}`,
      goal: GOAL.nearby,
      latencyGoal: GOAL.nearbyP99Ms,
    },
    {
      id: 'nearby-random',
      name: 'nearby, random point/sort/filter',
      kind: 'service',
      next: () => `/api/v1/stores/nearby?${point()}&sort=${pick(sorts)}${pick(filters)}`,
      goal: GOAL.nearby,
      latencyGoal: GOAL.nearbyP99Ms,
    },
    {
      id: 'home',
      name: 'home screen, random point',
      kind: 'service',
      next: () => `/api/v1/homepage?${point()}`,
      goal: GOAL.discovery,
      latencyGoal: GOAL.discoveryP99Ms,
    },
    {
      id: 'search',
      name: 'search',
      kind: 'service',
      next: () => `/api/v1/global/search?q=${pick(terms)}`,
      goal: GOAL.discovery,
      latencyGoal: GOAL.discoveryP99Ms,
    },
    { id: 'catalog', name: 'catalog', kind: 'service', next: () => `/api/v1/store/stores/${pick(sample).id}/catalog`, goal: GOAL.reads },
    { id: 'details', name: 'store details', kind: 'service', next: () => `/api/v1/store/stores/${pick(sample).slug}`, goal: GOAL.reads },
    {
      id: 'products',
      name: 'store products',
      kind: 'service',
      next: () => `/api/v1/store/products?store_id=${pick(sample).id}`,
      goal: GOAL.reads,
    },
    {
      id: 'positions',
      name: `driver positions, ${groupDigits(drivers.length)} drivers`,
      kind: 'service',
      next: () => '/api/v1/driver/location',
      request: positionRequests(drivers),
      goal: GOAL.positions,
    },
    {
      id: 'checkouts',
      name: `checkouts, ${groupDigits(customers.length)} customers`,
      kind: 'service',
      next: () => '/api/v1/customer/orders',
      request: checkoutRequests(customers),
      oneAddress: checkoutRequests(customers, { oneAddress: true }),
      goal: GOAL.checkouts,
      halfRateP99: CHECKOUT_HALF_RATE_P99_MS,
    },
  ];
  return [
    { id: 'node-http', name: 'node:http hello', kind: 'node-http', next: () => '/' },
    { id: 'express', name: 'Express 5 hello', kind: 'express', next: () => '/' },
    // Each read path right after its hand-written twin (scripts/bench-twins/): the same URLs from the same generator.
    ...service.flatMap((p): BenchPath[] => [
      { id: `hand-${p.id}`, name: `hand-written ${p.name}`, kind: 'hand', next: p.next, request: p.request, twin: p.id },
      p,
    ]),
    { id: 'healthz', name: 'healthz', kind: 'service', next: () => '/healthz' },
  ];
}

/** The next request of a path: its own, or `GET next()`. */
const requestOf = (p: BenchPath): BenchRequest => p.request?.() ?? { method: 'GET', path: p.next() };

/** The paths `--paths` keeps: those starting with one of its words, their hand-written twins, and the hellos. */
function selectPaths(all: BenchPath[], words: string[] | undefined): BenchPath[] {
  if (!words) return all;
  const kept = new Set(all.filter((p) => words.some((w) => p.id.startsWith(w))).map((p) => p.id));
  return all.filter((p) => p.kind === 'node-http' || p.kind === 'express' || kept.has(p.id) || (p.twin && kept.has(p.twin)));
}

const percent = (value: number) => `${value < 10 ? value.toFixed(1) : value.toFixed(0)} %`;

function printTable(results: Result[]): void {
  console.log(
    '| path | one at a time p50 / p99 ms (goal) | req/s | p50 ms | p99 ms | ÷ Express hello (req/s beside it) | goal | cost ÷ hand-written (goal ≤ 1.3×) | RSS MB | load avg before → after |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const share = shareOf(r, results);
    // Failed answers meet no goal, however fast they came back.
    const sound = r.answers > 0 && r.non2xx === 0;
    const goal = r.path.goal === undefined ? '' : `≥ ${r.path.goal} %: ${sound && share >= r.path.goal ? 'met' : '**not met**'}`;
    const hand = results.find((h) => h.path.twin === r.path.id);
    let cost = '';
    if (hand) {
      // Shares, not raw req/s: the twin and the path were measured at different moments.
      const times = shareOf(hand, results) / share;
      cost = `${r.rps > 0 ? times.toFixed(1) : '∞'}×: ${sound && times <= GOAL.handCost ? 'met' : '**not met**'}`;
    }
    const latency = r.answers > 0 ? `${r.p50} | ${r.p99}` : '— | —';
    console.log(
      `| ${r.path.name} | ${singleText(r)} | ${rpsText(r)} | ${latency} | ${percent(share)}${r.baseline === undefined ? '' : ` of ${groupDigits(r.baseline)}`} | ${goal} | ${cost} | ${r.rss?.toFixed(0) ?? '?'} | ` +
        `${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)} |`,
    );
  }
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : groupDigits(value));

function singleText(r: Result): string {
  const goal = r.path.latencyGoal;
  const verdict = goal === undefined ? '' : ` (≤ ${goal}: ${r.single.p99 <= goal ? 'met' : '**not met**'})`;
  return `${ms(r.single.p50)} / ${ms(r.single.p99)}${verdict}`;
}

function rpsText(r: Result): string {
  if (r.answers === 0) return '0 (no answer)';
  return `${groupDigits(r.rps)}${r.non2xx ? ` (${groupDigits(r.non2xx)} non-2xx)` : ''}`;
}

/** A path's req/s as a share of the Express hello measured beside it (or of the hello's own row), %. */
function shareOf(r: Result, results: Result[]): number {
  return (100 * r.rps) / (r.baseline ?? results.find((x) => x.path.kind === 'express')!.rps);
}

/** Each path's share of the Express hello at every city size: how cost grows with the city. */
function printGrowth(bySize: Map<number, Result[]>): void {
  const sizes = [...bySize.keys()];
  console.log(`\nShare of the Express hello's req/s by city size (sub-linear growth: the shares hold as the city grows)\n`);
  console.log(`| path | ${sizes.map((s) => `${groupDigits(s)} stores`).join(' | ')} |`);
  console.log(`|---|${sizes.map(() => '---').join('|')}|`);
  for (const r of bySize.get(sizes[0])!) {
    const cells = sizes.map((s) => {
      const results = bySize.get(s)!;
      const same = results.find((x) => x.path.id === r.path.id);
      if (!same) return '';
      if (same.answers === 0) return 'no answer';
      return `${percent(shareOf(same, results))} (p99 ${same.p99} ms${same.non2xx ? `, ${groupDigits(same.non2xx)} non-2xx` : ''})`;
    });
    console.log(`| ${r.path.name} | ${cells.join(' | ')} |`);
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      stores: { type: 'string', default: '10000,100000' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '32' },
      paths: { type: 'string' },
      plans: { type: 'string', default: 'compact' },
      cache: { type: 'string', default: 'on' },
      smoke: { type: 'boolean', default: false },
      followers: { type: 'string', default: '1000' },
      'fanout-orders': { type: 'string', default: '10' },
      'fanout-events': { type: 'string', default: '10' },
    },
  });
  const smoke = values.smoke;
  const sizes = (smoke ? '300' : values.stores).split(',').map(Number);
  const duration = smoke ? 1 : Number(values.duration);
  const connections = smoke ? 4 : Number(values.connections);
  const words = values.paths
    ?.split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  const plans = values.plans;
  const cache = values.cache;
  if (
    sizes.some((s) => !Number.isInteger(s) || s < 1) ||
    !(duration > 0) ||
    !(connections > 0) ||
    !['compact', 'full', 'none'].includes(plans) ||
    !['on', 'off'].includes(cache)
  ) {
    console.error(
      '--stores takes whole numbers separated by commas; --duration and --connections positive numbers; --plans compact, full or none; --cache on or off',
    );
    process.exit(2);
  }
  const known = [...benchPaths([{ id: 1, slug: 'x' }], [], []).map((p) => p.id), 'fanout'];
  const unknown = words?.filter((w) => !known.some((id) => id.startsWith(w)));
  if (unknown?.length) {
    console.error(`--paths: no path starts with ${unknown.join(', ')} (paths: ${known.join(', ')})`);
    process.exit(2);
  }
  let failed = false;
  const bySize = new Map<number, Result[]>();
  // Every outbound channel of the services at a local fake (scripts/bench-fake-channels.ts).
  const channels = await startFakeChannels();
  for (const stores of sizes) {
    const databaseUrl = await cityDatabase(stores);
    const city = await prepareCity(databaseUrl, stores);
    const positions = !words || words.some((w) => 'positions'.startsWith(w));
    const drivers = positions ? await prepareDrivers(databaseUrl, BENCH_DRIVERS) : [];
    const checkouts = !words || words.some((w) => 'checkouts'.startsWith(w));
    const customers = checkouts ? await prepareCustomers(databaseUrl, smoke ? 50 : BENCH_CUSTOMERS) : [];
    const paths = selectPaths(benchPaths(city.sample, drivers, customers), words);
    // `--paths fanout` alone runs the fan-out section only (its reference is the bare ws server, not the hellos).
    // Not in a smoke run unless asked for (it starts six servers of its own).
    const fanout = words ? words.some((w) => 'fanout'.startsWith(w)) : !smoke;
    const loaded = !words || words.some((w) => !'fanout'.startsWith(w));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...BENCH_SERVICE_ENV,
      ...channels.env,
      DATABASE_URL: databaseUrl,
      READ_CACHE: cache,
    };
    delete env.REDIS_URL;
    delete env.BENCH_RECORD_SQL;
    // The servers' connections carry this name (the service names its sessions after PGAPPNAME: config.ts), so the bench can find the
    // queries they leave running (quietDatabase).
    const appName = `bench-${process.pid}`;
    env.PGAPPNAME = appName;
    const header =
      `${groupDigits(stores)} stores (database ${groupDigits(city.databaseMb)} MB), ${connections} connections, ${duration} s per path, ` +
      `answer cache ${cache}; ` +
      `${machine(city.postgres)}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} at the start`;

    if (fanout) {
      const result: FanoutResult = await benchFanout({
        databaseUrl,
        env,
        followers: smoke ? 20 : Number(values.followers),
        orders: smoke ? 2 : Number(values['fanout-orders']),
        events: smoke ? 2 : Number(values['fanout-events']),
        start: async (kind, serverEnv) => {
          const server = await startServer(kind, serverEnv);
          return { url: server.url, pid: server.process.pid!, stop: () => stopServer(server) };
        },
        rssMb: rssOfPid,
      });
      console.log(`\n${header}`);
      printFanout(result);
      const faults = [result.service, ...(result.big ? [result.big] : [])].reduce((n, r) => n + r.lost + r.duplicated + r.disorder, 0);
      if (faults > 0) {
        console.error(`fanout: ${faults} events lost, duplicated or out of order`);
        failed = true;
      }
      await quietDatabase(databaseUrl, appName);
    }
    if (!loaded) continue;

    // The plans first, from a recording service of their own (recording is never loaded).
    let planText = '';
    if (plans !== 'none') {
      // Without the answer cache: every request it records is computed.
      const recorder = await startServer('service', { ...env, BENCH_RECORD_SQL: '1', READ_CACHE: 'off' });
      try {
        // Plans of the read paths (a write's statements are read from the service's code).
        const requests = paths.filter((p) => p.kind === 'service' && !p.request).map((p) => ({ name: p.name, path: p.next() }));
        const captured = await capturePlans(recorder, databaseUrl, requests, plans === 'full');
        for (const plan of captured.filter((p) => p.error)) {
          console.error(`plans: ${plan.name} ${plan.path}: ${plan.error}`);
          failed = true;
        }
        planText = formatPlans(captured);
      } finally {
        stopServer(recorder);
      }
    }

    await tidyWrittenTables(databaseUrl);
    const servers = new Map<ServerKind, Server>();
    try {
      for (const kind of new Set(paths.map((p) => p.kind))) servers.set(kind, await startServer(kind, env));
      // Each twin answers like the service, byte for byte (30 of its path's own URLs), or its ratio means nothing.
      for (const hand of paths.filter((p) => p.twin)) {
        for (let k = 0; k < 30; k++) {
          const { path: url, ...init } = requestOf(hand);
          const [handAnswer, serviceAnswer] = await Promise.all(
            (['hand', 'service'] as const).map(async (kind) => {
              const res = await fetch(`${servers.get(kind)!.url}${url}`, init);
              return { status: res.status, body: await res.text() };
            }),
          );
          if (handAnswer.status !== serviceAnswer.status || handAnswer.body !== serviceAnswer.body) {
            console.error(
              `the ${hand.name} handler answers ${url} differently from the service:`,
              JSON.stringify({ hand: handAnswer, service: serviceAnswer }),
            );
            failed = true;
            break;
          }
        }
      }
      const results: Result[] = [];
      let first = true;
      for (const benchPath of paths) {
        if (benchPath.kind === 'service' && !smoke && !first) {
          // A fresh service per path: requests a slow path left queued must not be billed to the next one.
          stopServer(servers.get('service')!);
          servers.set('service', await startServer('service', env));
        }
        if (benchPath.kind === 'service') first = false;
        const server = servers.get(benchPath.kind)!;
        const requests = [{ setupRequest: (req: { path: string }) => ({ ...req, ...requestOf(benchPath) }) }];
        await quietDatabase(databaseUrl, appName);
        const before = os.loadavg()[0];
        // A warm-up first (JIT, connection pool, caches), left out of the figures.
        if (!smoke) {
          await autocannon({ url: server.url, connections, duration: Math.min(2, duration / 5), requests });
          await quietDatabase(databaseUrl, appName);
        }
        const single = await oneAtATime(server.url, () => requestOf(benchPath), smoke ? 0 : Math.min(duration, 3));
        // The Express hello again just before the path: the machine is shared and its load
        // moves within a run, so each path's share is taken against a hello measured beside it.
        let baseline: number | undefined;
        if (!smoke && benchPath.kind !== 'node-http' && benchPath.kind !== 'express') {
          const hello = servers.get('express')!;
          baseline = (
            await autocannon({ url: hello.url, connections, duration: Math.min(duration, 3), requests: [{ setupRequest: (req) => req }] })
          ).requests.average;
        }
        const result = await autocannon({ url: server.url, connections, duration, requests });
        if (result.requests.total === 0) {
          console.error(`${benchPath.name}: no answer within ${duration} s`);
          failed = true;
        } else if (result.errors || result.timeouts || result.non2xx) {
          console.error(`${benchPath.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} answers other than 2xx`);
          failed = true;
        }
        let half: Result['half'];
        if (benchPath.halfRateP99 !== undefined && result.requests.total > 0) {
          const rate = Math.max(1, Math.round(result.requests.average / 2));
          await quietDatabase(databaseUrl, appName);
          const slow = await autocannon({ url: server.url, connections, duration, overallRate: rate, requests });
          if (slow.errors || slow.timeouts || slow.non2xx) {
            console.error(`${benchPath.name} at ${rate} req/s: ${slow.errors} errors, ${slow.timeouts} timeouts, ${slow.non2xx} not 2xx`);
            failed = true;
          }
          await quietDatabase(databaseUrl, appName);
          const steady = await steadyRate(server.url, () => requestOf(benchPath), rate, duration);
          if (steady.failed) {
            console.error(`${benchPath.name} at a steady ${rate} req/s: ${steady.failed} failed or not 2xx`);
            failed = true;
          }
          half = { rate, rps: slow.requests.average, p50: slow.latency.p50, p99: slow.latency.p99, steady };
        }
        let halfGoal: Result['halfGoal'];
        if (benchPath.halfRateP99 !== undefined && benchPath.goal !== undefined && baseline !== undefined) {
          // The goal's own reading: half the goal's share of the hello beside the path.
          const rate = Math.max(1, Math.round((baseline * benchPath.goal) / 100 / 2));
          await quietDatabase(databaseUrl, appName);
          const steady = await steadyRate(server.url, () => requestOf(benchPath), rate, duration);
          if (steady.failed) {
            console.error(`${benchPath.name} at a steady ${rate} req/s: ${steady.failed} failed or not 2xx`);
            failed = true;
          }
          halfGoal = { rate, answered: steady.answered, p50: steady.p50, p99: steady.p99 };
          if (benchPath.oneAddress) {
            await quietDatabase(databaseUrl, appName);
            const one = await steadyRate(server.url, benchPath.oneAddress, rate, duration);
            if (one.failed) {
              console.error(`${benchPath.name} from one address at a steady ${rate} req/s: ${one.failed} failed or not 2xx`);
              failed = true;
            }
            halfGoal.oneAddress = { answered: one.answered, p50: one.p50, p99: one.p99 };
          }
        }
        results.push({
          half,
          halfGoal,
          path: benchPath,
          rps: result.requests.average,
          baseline,
          single,
          answers: result.requests.total,
          non2xx: result.non2xx,
          p50: result.latency.p50,
          p99: result.latency.p99,
          rss: rssMb(server),
          load: [before, os.loadavg()[0]],
        });
      }
      bySize.set(stores, results);
      console.log(`\n${header}\n`);
      printTable(results);
      for (const r of results.filter((x) => x.half)) {
        const { rate, rps, p50, p99, steady } = r.half!;
        const goal = r.path.halfRateP99!;
        const verdict = (ms: number) => `goal ≤ ${goal}: ${ms <= goal ? 'met' : '**not met**'}`;
        console.log(
          `\n${r.path.name} at half the loaded rate (${groupDigits(rate)} req/s asked), autocannon (${groupDigits(rps)} answered; ` +
            `each second's requests sent at its start): p50 ${p50} ms, p99 ${p99} ms (${verdict(p99)}); ` +
            `evenly spaced (${groupDigits(steady.answered)} answered): p50 ${steady.p50} ms, p99 ${steady.p99} ms (${verdict(steady.p99)})`,
        );
        if (r.halfGoal) {
          const h = r.halfGoal;
          console.log(
            `${r.path.name} at half the goal's rate (${groupDigits(h.rate)} req/s asked: ${r.path.goal! / 2} % of the hello beside it), ` +
              `evenly spaced (${groupDigits(h.answered)} answered): p50 ${h.p50} ms, p99 ${h.p99} ms (${verdict(h.p99)})` +
              (h.oneAddress
                ? `; every request from one address, as before checkout-6 (${groupDigits(h.oneAddress.answered)} answered): ` +
                  `p50 ${h.oneAddress.p50} ms, p99 ${h.oneAddress.p99} ms`
                : ''),
          );
        }
      }
      if (planText) {
        console.log(
          `\nEXPLAIN (ANALYZE, BUFFERS) of every statement one request of each path sent (a fresh service, caches cold), ${groupDigits(stores)} stores:\n`,
        );
        console.log(planText);
      }
    } finally {
      for (const server of servers.values()) stopServer(server);
      await quietDatabase(databaseUrl, appName);
    }
  }
  if (bySize.size > 1) printGrowth(bySize);
  process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
