/**
 * npm run cluster -- [--instances 3] [--customers 20] [--orders-per-customer 10] [--minutes 12] [--quick | --kill-only]
 *
 * The deployment kit's balancer configuration, tested on this machine (loopback only): a fresh
 * `<DATABASE_URL db>_cluster` database, the Redis at REDIS_URL, N instances of the compiled
 * service (`node dist/src/main.js`, as the image runs it) as processes (started together: the
 * migrations run once), and Debian's nginx (installed with
 * apt-get when absent) running deploy/nginx.conf — the file compose.yaml mounts — with only its
 * `# cluster:` lines' addresses substituted. Then, in order:
 *   1. requests spread over the instances (X-Instance), one token works on every instance, a
 *      logout on one closes that token's sockets on all;
 *   2. live tracking across instances: the customer's socket on one, the store's requests on
 *      another, the driver's on a third; every follower gets every event once, in order;
 *   3. metrics add up: a short mixed load (checkouts replayed with their Idempotency-Key, store
 *      steps, positions, followers) with no restart; each instance's /metrics request counter
 *      moved by exactly the answers that named it, and their sum by every request the load sent
 *      (retries included). Counters live in each process and nothing persists them, so a
 *      restarted instance starts from 0: the equality is checked over this window, not over the
 *      disrupted loads below (whose answers per instance are printed, not compared);
 *   4. the OTP limits through the balancer, requests spread over the instances: the 6th code for
 *      one phone within the hour is refused (5, OTP_MAX_PER_PHONE_PER_HOUR's default), and the
 *      21st wrong code from one client address (20, OTP_FAILURES_PER_IP_PER_15_MINUTES's default);
 *   5. socket caps: per user across instances (3, shared leases, src/graphql/socket-leases.ts);
 *      per client address per instance (WS_MAX_SOCKETS_PER_IP, 4 here: docs/decisions.md
 *      "Websockets"), that address taken from nginx's X-Forwarded-For, not nginx's own;
 *   6. rolling restart (SIGTERM, one instance at a time) under a bounded mixed load
 *      (checkouts with Idempotency-Key retries, store steps, followers resuming with afterSeq):
 *      0 failed checkouts, 0 lost and 0 duplicated events, no 5xx a client did not retry away;
 *   7. kill -9 of one instance under the same load, at a moment it holds claimed outbox rows (its
 *      own FCM stand-in stops answering, so the sends of its worker's batch are in flight): the
 *      same bar; each of those rows is sent by another instance once its lease ends, exactly
 *      once, and each survivor runs the periodic jobs after the kill. Then a card order's
 *      delivery on that instance, killed while its capture call waits on the fake Stripe: the
 *      others' reconciliation captures it, once.
 * Clients come from distinct loopback addresses (127.0.x.y) where the per-address limits matter.
 * Prints the figures; exits 1 when a check fails. The whole run is bounded by --minutes.
 * --quick leaves out 6 and 7 (to try a check against a removed mechanism in a minute); --kill-only
 * leaves out 6 (the same for 7's checks).
 * Importable: the instance and nginx helpers are exported; main runs only as the script.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument --
   the script reads the service's JSON answers untyped, as the tests do */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { DEVELOPMENT_TEST_NUMBERS } from '../src/config';
import { serverDatabase } from '../src/db/admin';
import { FakeFcm, ReceivedPush } from '../test/helpers/fake-fcm';
import { FAKE_STRIPE_KEYS, FakeStripe } from '../test/helpers/fake-stripe';
import { autocannon, openGraphqlSocket } from './bench-process';

const ROOT = path.resolve(__dirname, '..');
const CODE = '123456';
const OWNER = '+15550001001';
const DRIVERS = ['+15550002001', '+15550002002'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function options() {
  const { values } = parseArgs({
    options: {
      instances: { type: 'string', default: '3' },
      customers: { type: 'string', default: '20' },
      'orders-per-customer': { type: 'string', default: '10' },
      minutes: { type: 'string', default: '12' },
      /** Instead of the checks: read and checkout throughput through nginx with 1..N instances. */
      throughput: { type: 'string', default: '' },
      /** With --throughput: how many times over (1, 2, 3 instances, then again). */
      rounds: { type: 'string', default: '1' },
      /** Without the rolling restart and the kill -9 (checks 6 and 7). */
      quick: { type: 'boolean', default: false },
      /** Without the rolling restart (check 6). */
      'kill-only': { type: 'boolean', default: false },
    },
  });
  return values;
}
/** Between one customer's checkouts: 20 customers × 10 orders span a rolling restart here (~2.5 min). */
const PACE_MS = 10_000;
/** NOTIFICATIONS_LEASE_SECONDS for the run: the killed instance's claimed rows are due again after this. */
const LEASE_SECONDS = 15;
/** PAYMENT_RECONCILE_EVERY_SECONDS for the run (60 by default): check 7c waits for a survivor's run. */
const RECONCILE_EVERY_SECONDS = 10;
/** WS_MAX_SOCKETS_PER_IP for the run: small, so that check 5 reaches it on every instance. */
const SOCKETS_PER_IP = 4;
const customerPhone = (i: number) => `+1415555${String(2000 + i)}`;
/** Customer i's sockets come from their own loopback address, as distinct customers' would. */
const customerAddress = (i: number) => `127.0.1.${1 + i}`;

// ---------------------------------------------------------------------------------------------
// Processes

const children = new Set<ChildProcess>();
let tmp = '';
export function stopAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.on('exit', stopAll);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Instance {
  name: string;
  port: number;
  metricsPort: number;
  child?: ChildProcess;
  log: string;
  /** This instance's own variables (its FCM address here), over the shared ones. */
  env?: Record<string, string>;
}

export function startInstance(instance: Instance, env: Record<string, string>): void {
  const out = fs.openSync(instance.log, 'a');
  // What the image runs: the compiled service, node as the process that gets the signals.
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      ...env,
      ...instance.env,
      PORT: String(instance.port),
      METRICS_PORT: String(instance.metricsPort),
      INSTANCE_NAME: instance.name,
    },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  children.add(child);
  child.once('exit', () => children.delete(child));
  instance.child = child;
}

export async function waitReady(instance: Instance, ms = 180_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (instance.child?.exitCode !== null && instance.child?.exitCode !== undefined) {
      throw new Error(`${instance.name} exited (${instance.child.exitCode}); its log: ${instance.log}`);
    }
    const ok = await fetch(`http://127.0.0.1:${instance.port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${instance.name} was not ready within ${ms / 1000} s; its log: ${instance.log}`);
}

export function stopInstance(instance: Instance, signal: NodeJS.Signals): Promise<number | null> {
  const child = instance.child!;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

export function nginxBinary(): string {
  if (!fs.existsSync('/usr/sbin/nginx')) {
    console.log('nginx is absent: apt-get install -y nginx');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync('apt-get', ['install', '-y', '-q', 'nginx'], { stdio: 'inherit', env });
    } catch {
      execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
      execFileSync('apt-get', ['install', '-y', '-q', 'nginx'], { stdio: 'inherit', env });
    }
  }
  return '/usr/sbin/nginx';
}

/** deploy/nginx.conf with the `# cluster:` lines' addresses replaced, nothing else. */
export function nginxConfig(listenPort: number, instances: Instance[]): string {
  const source = fs.readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');
  let upstreamWritten = false;
  const lines = source.split('\n').flatMap((line) => {
    if (line.includes('# cluster: listen')) return [line.replace(/listen\s+\S+;/, `listen 127.0.0.1:${listenPort};`)];
    if (line.includes('# cluster: instance')) {
      if (upstreamWritten) return [];
      upstreamWritten = true;
      return instances.map((i) => line.replace(/server\s+\S+/, `server 127.0.0.1:${i.port}`));
    }
    return [line];
  });
  if (!upstreamWritten || !lines.some((l) => l.includes(`listen 127.0.0.1:${listenPort};`))) {
    throw new Error('deploy/nginx.conf has no "# cluster:" lines to substitute');
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Clients

interface Answer {
  status: number;
  instance: string | null;
  body: any;
}

async function call(
  base: string,
  method: string,
  url: string,
  body?: unknown,
  token?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(base + url, {
    method,
    headers: {
      accept: 'application/json',
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, instance: res.headers.get('x-instance'), body: parsed };
}

/** What the load's requests came to: every attempt, and which instance answered each (X-Instance). */
interface Sent {
  retried: number;
  failed: number;
  /** Every attempt sent through the balancer, retries included. */
  requests: number;
  /** Attempts answered by each instance; `nginx` for answers without X-Instance, `none` for no answer. */
  answeredBy: Map<string, number>;
}

/** What a careful client does: retries a lost connection or a 502/503 (same body, same Idempotency-Key). */
async function callRetrying(stats: Sent, ...request: Parameters<typeof call>): Promise<Answer & { attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    let answer: Answer | undefined;
    try {
      answer = await call(...request);
    } catch {
      // connection refused or reset mid-request
    }
    stats.requests += 1;
    const by = answer ? (answer.instance ?? 'nginx') : 'none';
    stats.answeredBy.set(by, (stats.answeredBy.get(by) ?? 0) + 1);
    if (answer && answer.status < 500) return { ...answer, attempts: attempt };
    if (attempt >= 20) {
      stats.failed += 1;
      return { ...(answer ?? { status: 0, instance: null, body: undefined }), attempts: attempt };
    }
    stats.retried += 1;
    await sleep(100 * Math.min(attempt, 5));
  }
}

/** A JSON request from a given loopback address (fetch cannot choose its source): the per-address limits. */
function callFrom(localAddress: string, base: string, method: string, url: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      base + url,
      {
        method,
        localAddress,
        headers: { accept: 'application/json', ...(payload && { 'content-type': 'application/json' }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, instance: (res.headers['x-instance'] as string | undefined) ?? null, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The push token of a signed-in phone's one device (`signIn(..., { device: true })`). */
const pushToken = (phone: string) => `cluster-push-${phone.slice(1)}`;

async function signIn(base: string, phone: string, { device = false } = {}): Promise<string> {
  const sent = await call(base, 'POST', '/v1/auth/customer/send-otp', { phone_number: phone });
  if (sent.status !== 202) throw new Error(`send-otp ${phone}: ${sent.status} ${JSON.stringify(sent.body)}`);
  // With a device and its push token: the order's notifications to this user go out through FCM.
  const deviceFields = device ? { device_id: `cluster-${phone.slice(1)}`, push_token: pushToken(phone) } : {};
  const verified = await call(base, 'POST', '/v1/auth/customer/verify-otp', {
    phone_number: phone,
    verification_code: CODE,
    ...deviceFields,
  });
  if (verified.status !== 200) throw new Error(`verify-otp ${phone}: ${verified.status} ${JSON.stringify(verified.body)}`);
  if (verified.body.data.access_token) return verified.body.data.access_token as string;
  const created = await call(base, 'POST', '/v1/auth/customer/complete-profile', {
    phone_number: phone,
    registration_token: verified.body.data.registration_token,
    first_name: 'Load',
    last_name: 'Customer',
    ...deviceFields,
  });
  if (created.status !== 201) throw new Error(`complete-profile ${phone}: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.data.access_token as string;
}

/** A websocket through the balancer: its graphql-ws client and the instance that took it. */
async function openSocket(
  wsUrl: string,
  token: string,
  localAddress?: string,
): Promise<{ client: Client; instance: string | null; closed: Promise<number> }> {
  let instance: string | null = null;
  class Tagged extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { localAddress });
      this.once('upgrade', (res) => (instance = (res.headers['x-instance'] as string | undefined) ?? null));
    }
  }
  const { client, closed } = await openGraphqlSocket(wsUrl, token, Tagged);
  return { client, instance, closed };
}

/** A socket on a given instance: opens through the balancer until that instance takes one. */
async function socketOn(wsUrl: string, token: string, name: string, localAddress: string) {
  for (let tries = 0; tries < 30; tries++) {
    const socket = await openSocket(wsUrl, token, localAddress).catch(() => undefined);
    if (socket?.instance === name) return socket;
    await socket?.client.dispose();
    await sleep(100);
  }
  throw new Error(`no socket landed on ${name} in 30 tries`);
}

interface Update {
  seq: number;
  status: string;
  type: string;
}

const ORDER_UPDATES =
  'subscription ($orderId: Int!, $afterSeq: Int!) { orderUpdates(orderId: $orderId, afterSeq: $afterSeq) { seq type status } }';

/**
 * One graphql-ws client per customer, shared by that customer's followers (the per-user socket
 * cap is 3, a socket carries at most 20 subscriptions). Forgotten the moment it closes, and
 * disposed, so a follower never gets a closed client back (the first version's tight loop).
 */
class CustomerSocket {
  private current?: Promise<Client>;
  constructor(
    private readonly wsUrl: string,
    private readonly token: string,
    /** The customer's own address: one client, one address (the per-address cap is small here). */
    private readonly localAddress: string,
  ) {}
  get(): Promise<Client> {
    if (!this.current) {
      const opening: Promise<Client> = openSocket(this.wsUrl, this.token, this.localAddress).then(
        ({ client, closed }) => {
          void closed.then(() => {
            if (this.current === opening) this.current = undefined;
            void client.dispose();
          });
          return client;
        },
        (error: unknown) => {
          if (this.current === opening) this.current = undefined;
          throw error;
        },
      );
      this.current = opening;
    }
    return this.current;
  }
  async dispose(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    await current?.then((client) => client.dispose()).catch(() => undefined);
  }
}

/**
 * One order followed across socket losses: each loss resumes through the balancer with
 * afterSeq = the last seq seen. Every seq received is kept, so a duplicate or a gap shows.
 * It ends once it holds the events its order had when the load was over (`finishAt`).
 */
class Follower {
  readonly seqs: number[] = [];
  expected?: number[];
  reconnects = 0;
  positions = 0;
  private stopped = false;
  /** The order reached a final status and its stream completed: nothing more will come. */
  private ended = false;
  private lastStatus = '';
  private check = () => undefined as void;
  done: Promise<void>;
  constructor(
    private readonly socket: { get(): Promise<Client> },
    readonly orderId: number,
    private readonly errors: Map<string, number>,
  ) {
    this.done = this.run();
  }
  get finished(): boolean {
    return this.stopped || this.ended || (this.expected !== undefined && this.seqs.length >= this.expected.length);
  }
  finishAt(expected: number[]) {
    this.expected = expected;
    this.check();
  }
  stop() {
    this.stopped = true;
    this.check();
  }
  private async run(): Promise<void> {
    while (!this.finished) {
      let client: Client;
      try {
        client = await this.socket.get();
      } catch (error) {
        this.note(error);
        await sleep(300 + Math.random() * 300);
        continue;
      }
      const last = this.seqs.length ? this.seqs[this.seqs.length - 1] : 0;
      await new Promise<void>((resolve) => {
        let over = false;
        const end = () => {
          if (over) return;
          over = true;
          this.check = () => undefined;
          unsubscribe();
          resolve();
        };
        const unsubscribe = client.subscribe<{ orderUpdates: Update }>(
          { query: ORDER_UPDATES, variables: { orderId: this.orderId, afterSeq: last } },
          {
            next: (value) => {
              // A driver's position is live only: it carries the last stored event's seq and the
              // latest one is sent again on subscribe, so it is counted apart from the events.
              if (value.data?.orderUpdates.type === 'driver_location') this.positions += 1;
              else if (value.data) {
                this.seqs.push(value.data.orderUpdates.seq);
                this.lastStatus = value.data.orderUpdates.status;
              }
              if (this.finished) end();
            },
            error: (error) => {
              this.note(error);
              end();
            },
            // After a final status the stream ends; any other completion is a lost socket.
            complete: () => {
              if (['delivered', 'rejected', 'cancelled'].includes(this.lastStatus)) this.ended = true;
              end();
            },
          },
        );
        this.check = () => {
          if (this.finished) end();
        };
        this.check();
      });
      if (this.finished) return;
      this.reconnects += 1;
      await sleep(200 + Math.random() * 300);
    }
  }
  /** Why resumes happened, counted by kind (printed with the figures). */
  private note(error: unknown) {
    const code = (error as { code?: unknown })?.code;
    const kind = Array.isArray(error)
      ? `graphql: ${(error as { message: string }[]).map((e) => e.message).join('; ')}`
      : typeof code === 'number'
        ? `close ${code}`
        : String((error as Error)?.message ?? error).slice(0, 80);
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
  }
}

// ---------------------------------------------------------------------------------------------
// The run

const results: { check: string; ok: boolean; figures: string }[] = [];
function report(check: string, ok: boolean, figures: string) {
  results.push({ check, ok, figures });
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${check}: ${figures}`);
}

let database: MikroORM<PostgreSqlDriver> | undefined;
const sql = <T extends Record<string, unknown>[]>(query: string, params: unknown[] = []) => database!.em.fork().execute<T>(query, params);

async function main() {
  const args = options();
  const INSTANCES = Number(args.instances);
  const CUSTOMERS = Number(args.customers);
  const ORDERS_PER_CUSTOMER = Number(args['orders-per-customer']);
  // A customer's orders are all followed on its one socket, which carries at most 20 subscriptions.
  if (ORDERS_PER_CUSTOMER > 20) throw new Error('--orders-per-customer: at most 20 (one socket per customer)');
  if (CUSTOMERS > 250) throw new Error('--customers: at most 250 (one loopback address 127.0.1.x each)');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-'));
  const serverUrl = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!serverUrl || !redisUrl) throw new Error('npm run cluster needs DATABASE_URL and REDIS_URL (PostgreSQL and Redis as CI runs them)');
  const limit = setTimeout(
    () => {
      console.error(`cluster: over the ${args.minutes}-minute bound; stopping`);
      stopAll();
      process.exit(1);
    },
    Number(args.minutes) * 60_000,
  );
  limit.unref();

  const nginx = nginxBinary();
  console.log('building the service (tsc -p tsconfig.build.json, as the image does without the pages)');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  const databaseUrl = await serverDatabase(serverUrl, 'cluster', 'fresh');
  const stripe = new FakeStripe();
  const stripeUrl = await stripe.start();
  const testNumbers = [DEVELOPMENT_TEST_NUMBERS, ...Array.from({ length: CUSTOMERS + 2 }, (_, i) => `${customerPhone(i)}=${CODE}`)].join(
    ',',
  );
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `cluster${process.pid}:`,
    TRUST_PROXY: 'true',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'warn',
    OTP_TEST_NUMBERS: testNumbers,
    // Check 4 sends one phone codes back to back. The per-phone (5 an hour) and the wrong-code
    // (20 per address) limits keep their defaults: check 4 trips them at those counts. The load
    // signs its customers in from one address, so the per-address code requests are raised.
    OTP_RESEND_COOLDOWN_SECONDS: '0',
    OTP_MAX_PER_IP_PER_HOUR: '100000',
    OTP_MAX_PER_IP_PER_DAY: '100000',
    ORDERS_PER_CUSTOMER_PER_MINUTE: '100000',
    ORDERS_PER_IP_PER_MINUTE: '100000',
    WS_MAX_SOCKETS_PER_IP: String(SOCKETS_PER_IP),
    WS_CONNECTIONS_PER_IP_PER_MINUTE: '100000',
    READ_CACHE: 'off',
    // A claimed outbox row of a killed instance is taken over once its lease ends (check 7b). An
    // FCM send gives up well inside it, so a slow answer is not sent twice by a takeover.
    NOTIFICATIONS_LEASE_SECONDS: String(LEASE_SECONDS),
    FCM_TIMEOUT_MS: '5000',
    // Cards through one fake Stripe (test/helpers/fake-stripe.ts) shared by the instances, as
    // Stripe is; its webhooks go through nginx. Check 7c's capture is retried by the job.
    ...FAKE_STRIPE_KEYS,
    STRIPE_API_URL: stripeUrl,
    PAYMENT_RECONCILE_EVERY_SECONDS: String(RECONCILE_EVERY_SECONDS),
  };
  const instances: Instance[] = [];
  // Each instance sends its pushes to an FCM stand-in of its own (test/helpers/fake-fcm.ts), so
  // that the killed instance's sends can be left unanswered while the others' are answered.
  const fcm = new Map<string, FakeFcm>();
  for (let i = 1; i <= INSTANCES; i++) {
    const fake = new FakeFcm();
    await fake.start();
    fcm.set(`app${i}`, fake);
    instances.push({
      name: `app${i}`,
      port: await freePort(),
      metricsPort: await freePort(),
      log: path.join(tmp, `app${i}.log`),
      env: fake.env(),
    });
  }
  const started = Date.now();
  // All at once on the fresh database: the migrations run once (advisory lock), the demo city loads
  // once. Development's demo-city load holds an advisory lock the other instances wait for longer
  // than the serving pool's lock and statement timeouts, so the first start alone gets longer ones.
  const firstStart = { ...env, DB_LOCK_TIMEOUT_MS: '300000', DB_STATEMENT_TIMEOUT_MS: '300000' };
  instances.forEach((instance) => startInstance(instance, firstStart));
  await Promise.all(instances.map((instance) => waitReady(instance)));
  console.log(`${INSTANCES} instances ready in ${((Date.now() - started) / 1000).toFixed(1)} s (logs in ${tmp})`);
  database = await MikroORM.init<PostgreSqlDriver>({
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl,
    entities: [],
    discovery: { warnWhenNoEntities: false },
  });
  const migrationsApplied = await sql<{ name: string }[]>('select name from mikro_orm_migrations group by name having count(*) > 1');
  report(
    'migrations applied once by instances starting together',
    migrationsApplied.length === 0,
    `${migrationsApplied.length} applied twice`,
  );

  const lbPort = await freePort();
  fs.writeFileSync(path.join(tmp, 'nginx.conf'), nginxConfig(lbPort, instances));
  const nginxLog = fs.openSync(path.join(tmp, 'nginx.log'), 'a');
  const balancer = spawn(nginx, ['-p', tmp, '-c', path.join(tmp, 'nginx.conf'), '-g', `daemon off; pid ${path.join(tmp, 'nginx.pid')};`], {
    stdio: ['ignore', nginxLog, nginxLog],
  });
  children.add(balancer);
  const lb = `http://127.0.0.1:${lbPort}`;
  stripe.webhookUrl = `${lb}/api/v1/payments/webhooks/stripe`;
  const wsUrl = `ws://127.0.0.1:${lbPort}/graphql`;
  for (let i = 0; ; i++) {
    const up = await fetch(`${lb}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 100 || balancer.exitCode !== null) throw new Error(`nginx did not start; see ${path.join(tmp, 'nginx.log')}`);
    await sleep(100);
  }
  console.log(`nginx (deploy/nginx.conf) on 127.0.0.1:${lbPort} in front of ${instances.map((i) => `${i.name}:${i.port}`).join(', ')}`);

  // 1. Spread, one token everywhere, logout closes the token's sockets on every instance.
  {
    const token = await signIn(lb, '+15550000001');
    const seen = new Map<string, number>();
    let non200 = 0;
    for (let i = 0; i < 30; i++) {
      const me = await call(lb, 'GET', '/v1/auth/customer/me', undefined, token);
      if (me.status !== 200) non200 += 1;
      seen.set(me.instance ?? '?', (seen.get(me.instance ?? '?') ?? 0) + 1);
    }
    const spread = [...seen].map(([name, n]) => `${name} ${n}`).join(', ');
    report(
      'requests spread over the instances, one token valid on each',
      seen.size === INSTANCES && non200 === 0,
      `${spread}; ${non200} not 200`,
    );

    const doomed = await signIn(lb, '+15550000001');
    const sockets = await Promise.all(instances.map((i) => socketOn(wsUrl, doomed, i.name, '127.0.2.1')));
    const loggedOut = await call(lb, 'POST', '/v1/auth/customer/logout', undefined, doomed);
    const codes = await Promise.all(sockets.map((s) => Promise.race([s.closed, sleep(5000).then(() => 0)])));
    report(
      'a logout on one instance closes that token sockets on all',
      loggedOut.status === 200 && codes.every((c) => c === 4401),
      `logout answered by ${loggedOut.instance}; close codes ${sockets.map((s, i) => `${s.instance}:${codes[i] || 'open'}`).join(', ')}`,
    );
  }

  // The store, its simple product, the drivers.
  const ownerToken = await signIn(lb, OWNER, { device: true });
  const driverTokens = await Promise.all(DRIVERS.map((phone) => signIn(lb, phone, { device: true })));
  const stores = await sql<{ id: number; latitude: number; longitude: number }[]>(
    `select s.id, s.latitude, s.longitude from stores s join users u on u.id = s.owner_id where u.phone_number = ? order by s.id`,
    [OWNER],
  );
  // Open around the clock in the test's own city (CI runs at night too): a period that ends where it starts.
  await sql(`delete from store_opening_hours where store_id in (?)`, [stores.map((s) => s.id)]);
  await sql(
    `insert into store_opening_hours (store_id, day_of_week, opens_at, closes_at)
     select s, d, '00:00', '00:00' from unnest(?::int[]) s cross join generate_series(0, 6) d`,
    [`{${stores.map((s) => s.id).join(',')}}`],
  );
  const customerTokens: string[] = [];
  for (let i = 0; i < CUSTOMERS; i++) customerTokens.push(await signIn(lb, customerPhone(i), { device: true }));
  type Shop = { storeId: number; productId: number; lat: number; lng: number };
  let shop: Shop | undefined;
  for (const store of stores) {
    const catalog = await call(lb, 'GET', `/api/v1/store/stores/${store.id}/catalog`);
    const product = (catalog.body?.data?.menus ?? [])
      .flatMap((m: any) => m.categories.flatMap((c: any) => c.products))
      .find((p: any) => !p.options.some((o: any) => o.is_required || o.min_select > 0));
    if (!product) continue;
    shop = { storeId: store.id, productId: product.id as number, lat: store.latitude, lng: store.longitude };
    const address = await call(lb, 'POST', '/api/v1/customer/addresses', addressBody(shop), customerTokens[0]);
    const probe = await call(lb, 'POST', '/api/v1/customer/orders', cartBody(shop, address.body.data.id), customerTokens[0]);
    if (probe.status === 201) {
      await call(lb, 'POST', `/api/v1/store/orders/${probe.body.data.order_id}/reject`, { reason: 'probe' }, ownerToken);
      break;
    }
    shop = undefined;
  }
  if (!shop) throw new Error(`no store of ${OWNER} takes an order now`);
  const addresses: number[] = [];
  for (const token of customerTokens)
    addresses.push((await call(lb, 'POST', '/api/v1/customer/addresses', addressBody(shop), token)).body.data.id as number);

  if (args.throughput) {
    await throughput(Number(args.throughput), Number(args.rounds), {
      instances,
      balancer,
      lbPort,
      shop,
      tokens: customerTokens,
      addresses,
    });
    balancer.kill('SIGTERM');
    await Promise.all(instances.map((i) => stopInstance(i, 'SIGTERM')));
    await database.close(true);
    process.exit(0);
  }

  // 2. Live tracking across instances.
  {
    const [a, b, c] = [instances[0], instances[1 % INSTANCES], instances[2 % INSTANCES]];
    const direct = (i: Instance) => `http://127.0.0.1:${i.port}`;
    for (const token of driverTokens) {
      await call(direct(c), 'POST', '/api/v1/driver/online', undefined, token);
      await call(direct(c), 'POST', '/api/v1/driver/location', { latitude: shop.lat, longitude: shop.lng }, token);
    }
    const placed = await call(lb, 'POST', '/api/v1/customer/orders', cartBody(shop, addresses[0]), customerTokens[0]);
    const orderId = placed.body.data.order_id as number;
    // One follower on each instance (the customer's socket on A first).
    const followers = await Promise.all(
      instances.map(async (instance) => {
        const socket = await socketOn(wsUrl, customerTokens[0], instance.name, '127.0.2.2');
        const follower = new Follower({ get: () => Promise.resolve(socket.client) }, orderId, new Map());
        return { instance: instance.name, follower, socket };
      }),
    );
    const steps: [Instance, string, string | undefined][] = [
      [b, `/api/v1/store/orders/${orderId}/accept`, ownerToken],
      [b, `/api/v1/store/orders/${orderId}/preparing`, ownerToken],
      [b, `/api/v1/store/orders/${orderId}/ready`, ownerToken],
    ];
    const answers: number[] = [];
    for (const [instance, url, token] of steps) answers.push((await call(direct(instance), 'POST', url, undefined, token)).status);
    const assigned = await sql<{ phone_number: string }[]>(
      `select u.phone_number from orders o join drivers d on d.id = o.driver_id join users u on u.id = d.user_id where o.id = ?`,
      [orderId],
    );
    const driverToken = driverTokens[DRIVERS.indexOf(assigned[0]?.phone_number)];
    if (driverToken) {
      answers.push((await call(direct(c), 'POST', `/api/v1/driver/orders/${orderId}/pickup`, undefined, driverToken)).status);
      for (let k = 1; k <= 3; k++) {
        const at = { latitude: shop.lat + k * 0.001, longitude: shop.lng };
        answers.push((await call(direct(c), 'POST', '/api/v1/driver/location', at, driverToken)).status);
      }
      answers.push((await call(direct(c), 'POST', `/api/v1/driver/orders/${orderId}/deliver`, undefined, driverToken)).status);
    }
    const expected = await orderSeqs(orderId);
    await waitFor(() => followers.every((f) => f.follower.seqs.length >= expected.length), 15_000);
    followers.forEach((f) => f.follower.stop());
    await Promise.all(followers.map(async (f) => f.socket.client.dispose()));
    const exact = followers.every((f) => JSON.stringify(f.follower.seqs) === JSON.stringify(expected));
    report(
      `live tracking: customer on ${a.name}, store on ${b.name}, driver on ${c.name}`,
      exact && answers.every((s) => s < 300) && Boolean(driverToken),
      `${expected.length} events (${driverToken ? 'through delivered' : 'no demo driver assigned'}); step answers ${answers.join(' ')}; ` +
        followers
          .map(
            (f) =>
              `${f.instance} got ${f.follower.seqs.length}${JSON.stringify(f.follower.seqs) === JSON.stringify(expected) ? '' : ' WRONG ' + JSON.stringify(f.follower.seqs)}`,
          )
          .join(', '),
    );
  }

  // 3 and 4. Mixed load during a rolling restart, then during a kill -9: each customer places
  // ORDERS_PER_CUSTOMER orders (PACE_MS apart, retrying with the same Idempotency-Key), three
  // store clerks take each order through accept, preparing, ready, drivers send positions, and
  // a follower per order resumes after every socket loss until it has the order's events.
  const load = async (label: string, disruption: () => Promise<string>, pace = { orders: ORDERS_PER_CUSTOMER, ms: PACE_MS }) => {
    const stats = {
      checkouts: 0,
      failedCheckouts: 0,
      replayedDifferent: 0,
      storeSteps: 0,
      driverSteps: 0,
      positions: 0,
      retried: 0,
      failed: 0,
      requests: 0,
      answeredBy: new Map<string, number>(),
    };
    const followers: Follower[] = [];
    const errors = new Map<string, number>();
    const sockets = customerTokens.map((token, i) => new CustomerSocket(wsUrl, token, customerAddress(i)));
    let running = true;
    let disrupted = false;
    const storeQueue: Follower[] = [];
    const t0 = Date.now();
    const customers = customerTokens.map(async (token, i) => {
      // At least pace.orders each, and on until the disruption is over (a slow restart is still
      // under load), at most 20 (the subscriptions one socket carries).
      for (let n = 0; n < 20 && (n < pace.orders || !disrupted); n++) {
        const key = randomUUID();
        const body = cartBody(shop, addresses[i]);
        const first = await callRetrying(stats, lb, 'POST', '/api/v1/customer/orders', body, token, { 'Idempotency-Key': key });
        if (first.status !== 201 && first.status !== 200) {
          stats.failedCheckouts += 1;
          console.log(`  checkout failed: ${first.status} ${JSON.stringify(first.body)?.slice(0, 200)}`);
          continue;
        }
        stats.checkouts += 1;
        const orderId = first.body.data.order_id as number;
        // The same key again answers the same order.
        const again = await callRetrying(stats, lb, 'POST', '/api/v1/customer/orders', body, token, { 'Idempotency-Key': key });
        if (again.body?.data?.order_id !== orderId) stats.replayedDifferent += 1;
        const follower = new Follower(sockets[i], orderId, errors);
        followers.push(follower);
        storeQueue.push(follower);
        await sleep(pace.ms);
      }
    });
    const clerks = [1, 2, 3].map(async () => {
      while (running || storeQueue.length) {
        const follower = storeQueue.shift();
        if (!follower) {
          await sleep(50);
          continue;
        }
        for (const step of ['accept', 'preparing', 'ready']) {
          const answer = await callRetrying(stats, lb, 'POST', `/api/v1/store/orders/${follower.orderId}/${step}`, undefined, ownerToken);
          // A step retried after a lost answer finds it done (409): the step happened once.
          if (answer.status < 300 || (answer.attempts > 1 && answer.status === 409)) stats.storeSteps += 1;
          else console.log(`  store step ${step} of ${follower.orderId}: ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`);
        }
      }
    });
    // Positions: the drivers (online since check 2) report every second.
    const drivers = driverTokens.map(async (token, d) => {
      for (let k = 0; running; k++) {
        // Back and forth ~11 m a second: a plausible drive (the service refuses jumps over 200 km/h).
        const step = k % 40 < 20 ? k % 40 : 40 - (k % 40);
        const at = { latitude: shop.lat + step * 0.0001 + d * 0.0005, longitude: shop.lng };
        const answer = await callRetrying(stats, lb, 'POST', '/api/v1/driver/location', at, token);
        if (answer.status < 300) stats.positions += 1;
        // The order the service gave this driver, one step a second: picked up, then delivered (so
        // the driver is free for the next, and its positions reach that order's followers).
        const [mine] = await sql<{ id: number; status: string }[]>(
          `select o.id, o.status from orders o join drivers d on d.id = o.driver_id join users u on u.id = d.user_id
           where u.phone_number = ? and o.status in ('ready_for_pickup', 'picked_up') order by o.id limit 1`,
          [DRIVERS[d]],
        );
        if (mine) {
          const step = mine.status === 'ready_for_pickup' ? 'pickup' : 'deliver';
          const done = await callRetrying(stats, lb, 'POST', `/api/v1/driver/orders/${mine.id}/${step}`, undefined, token);
          // A step retried after a lost answer finds it done: it happened once.
          if (done.status < 300 || (done.attempts > 1 && done.status < 500)) stats.driverSteps += 1;
          else console.log(`  driver step ${step} of ${mine.id}: ${done.status} ${JSON.stringify(done.body)?.slice(0, 200)}`);
        }
        await sleep(1000);
      }
    });
    const what = await disruption();
    disrupted = true;
    const disruptedIn = (Date.now() - t0) / 1000;
    await Promise.all(customers);
    running = false;
    await Promise.all([...clerks, ...drivers]);
    // Followers stay subscribed through the whole load (and so through the disruption); now each
    // catches up with what its order holds (bounded), then stops.
    for (const f of followers) f.finishAt(await orderSeqs(f.orderId));
    await waitFor(() => followers.every((f) => f.finished), 60_000);
    followers.forEach((f) => f.stop());
    await Promise.all(followers.map((f) => f.done));
    await Promise.all(sockets.map((socket) => socket.dispose()));
    let lost = 0;
    let duplicated = 0;
    let disordered = 0;
    for (const f of followers) {
      const got = new Set(f.seqs);
      duplicated += f.seqs.length - got.size;
      lost += (f.expected ?? []).filter((seq) => !got.has(seq)).length;
      disordered += f.seqs.filter((seq, i) => i > 0 && seq < f.seqs[i - 1]).length;
    }
    const reconnects = followers.reduce((n, f) => n + f.reconnects, 0);
    const positionsSeen = followers.reduce((n, f) => n + f.positions, 0);
    const events = followers.reduce((n, f) => n + (f.expected?.length ?? 0), 0);
    const why = [...errors].map(([kind, n]) => `${n}× ${kind}`).join(', ') || 'none';
    report(
      label,
      stats.failedCheckouts === 0 &&
        stats.replayedDifferent === 0 &&
        stats.failed === 0 &&
        lost === 0 &&
        duplicated === 0 &&
        disordered === 0,
      `${what} (disruption over after ${disruptedIn.toFixed(0)} s, load over after ${((Date.now() - t0) / 1000).toFixed(0)} s); ` +
        `${stats.checkouts} checkouts (${stats.failedCheckouts} failed, ${stats.replayedDifferent} replays answered another order), ` +
        `${stats.storeSteps} store steps, ${stats.driverSteps} driver steps, ${stats.positions} positions, ${stats.requests} requests, ${stats.retried} retried (5xx or connection lost), ` +
        `${stats.failed} never succeeded; ${followers.length} followers, ${events} events, ${lost} lost, ${duplicated} duplicated, ${disordered} out of order, ` +
        `${positionsSeen} live positions, ${reconnects} resumes with afterSeq (why: ${why}); ` +
        `answered by ${[...stats.answeredBy].map(([by, n]) => `${by} ${n}`).join(', ')}`,
    );
    return stats;
  };

  // 3. Metrics add up. Each instance counts its requests in its own process (prom-client) and
  // persists nothing, so a restarted instance starts from 0: the equality is checked over a
  // mixed load with no restart, before the disrupted ones. Every attempt the load sends goes
  // through nginx; each answer names its instance (X-Instance); nginx's own answers (502) and
  // lost connections would reach no counter and show as a difference.
  {
    const before = await requestCounts(instances);
    const sent = await load('mixed load, no restart (the metrics window)', () => Promise.resolve('no restart'), { orders: 3, ms: 2000 });
    const after = await requestCounts(instances);
    const counted = instances.map((i) => ({
      name: i.name,
      moved: after.get(i.name)! - before.get(i.name)!,
      named: sent.answeredBy.get(i.name) ?? 0,
    }));
    const total = counted.reduce((n, c) => n + c.moved, 0);
    report(
      "metrics: the instances' request counters add up to what the mixed load sent through nginx",
      total === sent.requests && counted.every((c) => c.moved === c.named && c.moved > 0),
      `${sent.requests} requests sent (${sent.retried} retries), ${total} counted: ` +
        counted.map((c) => `${c.name} counted ${c.moved}, named by ${c.named} answers`).join(', ') +
        (sent.answeredBy.has('nginx') || sent.answeredBy.has('none')
          ? `; ${sent.answeredBy.get('nginx') ?? 0} answered by nginx, ${sent.answeredBy.get('none') ?? 0} unanswered`
          : ''),
    );
  }

  // 4. The OTP limits hold across instances: requests through nginx, spread over the instances,
  // each from an address of its own (counted from X-Forwarded-For), refused at the documented count.
  {
    const phone = customerPhone(CUSTOMERS + 1);
    const sends: Answer[] = [];
    for (let n = 0; n < 6; n++) sends.push(await callFrom('127.0.4.1', lb, 'POST', '/v1/auth/customer/send-otp', { phone_number: phone }));
    const sendSpread = new Set(sends.map((a) => a.instance));
    report(
      'OTP: the 6th code for one phone within the hour is refused, whichever instance takes it (5 an hour)',
      sends.slice(0, 5).every((a) => a.status === 202) &&
        sends[5].status === 429 &&
        sends[5].body?.message === 'Too many verification codes requested. Try again later.' &&
        sendSpread.size >= Math.min(2, INSTANCES),
      `answers ${sends.map((a) => `${a.status} (${a.instance})`).join(', ')}`,
    );

    // Wrong codes for phones that hold none: each is a plain 400 until the address's 20 are spent.
    const guesses: Answer[] = [];
    for (let n = 0; n < 21; n++) {
      const body = { phone_number: `+1415556${String(1000 + n)}`, verification_code: '000000' };
      guesses.push(await callFrom('127.0.4.2', lb, 'POST', '/v1/auth/customer/verify-otp', body));
    }
    const other = await callFrom('127.0.4.3', lb, 'POST', '/v1/auth/customer/verify-otp', {
      phone_number: '+14155569999',
      verification_code: '000000',
    });
    const guessedOn = new Map<string, number>();
    for (const a of guesses.slice(0, 20)) guessedOn.set(a.instance ?? '?', (guessedOn.get(a.instance ?? '?') ?? 0) + 1);
    report(
      'OTP: the 21st wrong code from one address is refused across instances (20 per 15 minutes); another address is not',
      guesses.slice(0, 20).every((a) => a.status === 400) &&
        guesses[20].status === 429 &&
        guesses[20].body?.message === 'Too many wrong verification codes from this address. Try again later.' &&
        guessedOn.size === INSTANCES &&
        other.status === 400,
      `20 wrong codes answered ${[...new Set(guesses.slice(0, 20).map((a) => a.status))].join('/')} by ` +
        `${[...guessedOn].map(([n, c]) => `${n} ${c}`).join(', ')}; the 21st ${guesses[20].status} (${guesses[20].instance}); ` +
        `another address ${other.status}`,
    );
  }

  // 5a. The per-user socket cap across instances (3 by default).
  {
    const token = await signIn(lb, customerPhone(CUSTOMERS));
    const open: { client: Client }[] = [];
    const byInstance = new Map<string, number>();
    for (let i = 0; i < INSTANCES * 3 + 1; i++) {
      try {
        const socket = await openSocket(wsUrl, token, '127.0.2.3');
        open.push(socket);
        byInstance.set(socket.instance ?? '?', (byInstance.get(socket.instance ?? '?') ?? 0) + 1);
      } catch {
        // refused (4429)
      }
    }
    await Promise.all(open.map(async (s) => s.client.dispose()));
    report(
      'per-user socket cap (3) holds across instances',
      open.length === 3,
      `${open.length} of ${INSTANCES * 3 + 1} sockets accepted for one user (${[...byInstance].map(([n, c]) => `${n} ${c}`).join(', ')})`,
    );
  }

  // 5b. The per-address socket cap is per instance (docs/decisions.md "Websockets"): one address
  // opens authenticated sockets (a different customer each time, under the per-user cap) until
  // every instance refuses it; each instance then holds exactly the cap. Meanwhile another
  // address still gets a socket: the cap counts the client's address nginx forwards, not nginx's.
  {
    const held: WebSocket[] = [];
    const heldOn = new Map<string, number>();
    const refusals = new Map<number, number>();
    let inARow = 0;
    for (let k = 0; k < 60 && inARow < 3 * INSTANCES; k++) {
      const socket = await rawSocket(wsUrl, customerTokens[k % CUSTOMERS], '127.0.3.1');
      if (socket.socket) {
        held.push(socket.socket);
        heldOn.set(socket.instance ?? '?', (heldOn.get(socket.instance ?? '?') ?? 0) + 1);
        inARow = 0;
      } else {
        refusals.set(socket.status, (refusals.get(socket.status) ?? 0) + 1);
        inARow += 1;
      }
    }
    const neighbour = await rawSocket(wsUrl, customerTokens[0], '127.0.3.2');
    for (const socket of [...held, neighbour.socket]) socket?.close();
    report(
      `per-address socket cap (${SOCKETS_PER_IP}) holds on each instance, for the client's address`,
      instances.every((i) => heldOn.get(i.name) === SOCKETS_PER_IP) &&
        held.length === SOCKETS_PER_IP * INSTANCES &&
        [...refusals.keys()].every((status) => status === 429) &&
        Boolean(neighbour.socket),
      `one address held ${held.length} (${[...heldOn].map(([n, c]) => `${n} ${c}`).join(', ')}), then refused ` +
        `${[...refusals].map(([status, n]) => `${n}× ${status}`).join(', ')}; another address meanwhile: ` +
        (neighbour.socket ? `accepted on ${neighbour.instance}` : `refused (${neighbour.status})`),
    );
  }

  if (args.quick) {
    console.log('--quick: the rolling restart and the kill -9 are left out');
  } else {
    if (args['kill-only']) console.log('--kill-only: the rolling restart is left out');
    else
      await load('rolling restart (SIGTERM, one instance at a time) under load', async () => {
        const times: string[] = [];
        for (const instance of instances) {
          // Spread over the load: each restart finds more followed orders (restarts take seconds here).
          await sleep(20_000);
          const t0 = Date.now();
          const code = await stopInstance(instance, 'SIGTERM');
          const drained = Date.now() - t0;
          startInstance(instance, env);
          await waitReady(instance);
          times.push(
            `${instance.name} exit ${code} after ${(drained / 1000).toFixed(1)} s, back in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
          );
        }
        return times.join('; ');
      });

    // 7. kill -9 while the victim holds claimed outbox rows. A killed instance rarely holds one
    // (it sends within a second), so its FCM stand-in stops answering first: the victim's worker
    // claims a batch (the rows' due time pushed a lease ahead), sends it and waits; it is killed
    // as soon as its first send arrives. Those rows are then due again only when their lease ends,
    // and nothing but the lease's expiry (worker.ts's claim) brings them back: the victim stays
    // down until they are sent (or LEASE_SECONDS + 30 s), so that another instance sends them.
    const victim = instances[INSTANCES - 1];
    const victimFcm = fcm.get(victim.name)!;
    let killedAt = 0;
    let heldAtKill: ReceivedPush[] = [];
    const keyOf = (p: { token: string; data: { type: string; order_id: string } }) => `${p.token} ${p.data.type} ${p.data.order_id}`;
    /** The outbox rows of the sends the victim had in flight, by the push each would make. */
    const heldRows = async () =>
      sql<{ key: string; status: string; attempts: number; sent_at: string | null }[]>(
        `select h.token || ' ' || h.kind || ' ' || h.order_id as key, n.status, n.attempts, n.sent_at
         from json_to_recordset(?::json) as h(token text, kind text, order_id int)
         join user_devices d on d.push_token = h.token
         join notification_outbox n on n.channel = 'push' and n.target = 'device:' || d.id and n.kind = h.kind and n.order_id = h.order_id`,
        [JSON.stringify(heldAtKill.map((p) => ({ token: p.token, kind: p.data.type, order_id: Number(p.data.order_id) })))],
      );
    await load('kill -9 of one instance under load, while it holds claimed outbox rows', async () => {
      await sleep(30_000); // each customer's socket carries ~3 followed orders by then
      victimFcm.hold();
      const holdFrom = Date.now();
      await waitFor(() => victimFcm.heldPushes.length > 0, 20_000);
      await sleep(200); // the rest of that batch's sends
      killedAt = Date.now();
      await stopInstance(victim, 'SIGKILL');
      await sleep(100);
      heldAtKill = [...victimFcm.heldPushes];
      victimFcm.release(); // the dead sends' connections are dropped; nothing of them was accepted
      await waitFor(
        async () => {
          const rows = await heldRows();
          return rows.length === heldAtKill.length && rows.every((r) => r.status !== 'pending');
        },
        LEASE_SECONDS * 1000 + 30_000,
      );
      const down = Date.now() - killedAt;
      startInstance(victim, env);
      await waitReady(victim);
      return (
        `${victim.name} killed ${((killedAt - holdFrom) / 1000).toFixed(1)} s after its FCM stopped answering, ` +
        `${heldAtKill.length} sends in flight; restarted after ${(down / 1000).toFixed(0)} s`
      );
    });

    // 7b. What the dead instance held is taken over. The outbox: each row whose send it had in
    // flight is sent by another instance once its lease ends, exactly once (one push answered by
    // the stand-ins in all, after the kill, none by the victim's), and no push of the whole run
    // was answered twice. The periodic jobs: every instance runs them (payments' reconciliation
    // every RECONCILE_EVERY_SECONDS here, the unanswered orders' expiry every 30 s), so each
    // survivor must have run both since the kill (waited for up to 75 s after it).
    {
      const overdue = async () =>
        (
          await sql<{ n: number }[]>(
            `select count(*)::int as n from notification_outbox where status = 'pending' and due_at < now() and (leased_until is null or leased_until < now())`,
          )
        )[0].n;
      await waitFor(async () => (await overdue()) === 0, 30_000);
      const left = await overdue();
      const byStatus = await sql<{ status: string; n: number; again: number }[]>(
        `select status, count(*)::int as n, count(*) filter (where attempts > 1)::int as again from notification_outbox group by status order by status`,
      );
      const answered = [...fcm].flatMap(([name, fake]) => fake.received.map((push) => ({ name, key: keyOf(push), at: push.at })));
      const times = new Map<string, number>();
      for (const a of answered) times.set(a.key, (times.get(a.key) ?? 0) + 1);
      const twice = [...times.values()].filter((n) => n > 1).length;
      const rows = new Map((await heldRows()).map((r) => [r.key, r]));
      const takeovers = heldAtKill.map((push) => {
        const key = keyOf(push);
        const sends = answered.filter((a) => a.key === key);
        return { key, row: rows.get(key), sends };
      });
      const takenOver = takeovers.filter(
        (t) =>
          t.row?.status === 'sent' &&
          t.row.attempts > 1 &&
          t.sends.length === 1 &&
          t.sends[0].name !== victim.name &&
          t.sends[0].at > killedAt,
      );
      const by = new Map<string, number>();
      for (const t of takenOver) by.set(t.sends[0].name, (by.get(t.sends[0].name) ?? 0) + 1);
      const delays = takenOver.map((t) => (t.sends[0].at - killedAt) / 1000);
      const survivors = instances.filter((i) => i !== victim);
      const lastRuns = async () => {
        const runs: { name: string; job: string; at: number }[] = [];
        for (const instance of survivors) {
          const text = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
          for (const job of ['reconcile_payments', 'expire_orders']) {
            const line = text.split('\n').find((l) => l.startsWith(`job_last_success_timestamp_seconds{job="${job}"}`));
            runs.push({ name: instance.name, job, at: line ? Number(line.slice(line.lastIndexOf(' ') + 1)) * 1000 : 0 });
          }
        }
        return runs;
      };
      const since = (runs: { at: number }[]) => runs.every((r) => r.at > killedAt);
      await waitFor(async () => since(await lastRuns()), Math.max(0, killedAt + 75_000 - Date.now()));
      const runs = await lastRuns();
      report(
        "the killed instance's claimed outbox rows are sent once, by the others, after their lease",
        heldAtKill.length > 0 && takenOver.length === heldAtKill.length && twice === 0 && left === 0,
        `${heldAtKill.length} rows in flight on ${victim.name} at the kill` +
          (heldAtKill.length === 0 ? ' (none: the takeover was not exercised)' : '') +
          `, ${takenOver.length} sent once by another instance after the kill (${[...by].map(([n, c]) => `${n} ${c}`).join(', ') || 'none'}` +
          (delays.length
            ? `, ${Math.min(...delays).toFixed(1)}–${Math.max(...delays).toFixed(1)} s after it; lease ${LEASE_SECONDS} s`
            : '') +
          `)` +
          (takenOver.length < takeovers.length
            ? `; not taken over: ${takeovers
                .filter((t) => !takenOver.includes(t))
                .slice(0, 3)
                .map((t) => `${t.key} row ${t.row ? `${t.row.status}, attempt ${t.row.attempts}` : 'missing'}, ${t.sends.length} answered`)
                .join('; ')}`
            : '') +
          `; the run's pushes: ${answered.length} answered (${[...fcm].map(([n, f]) => `${n} ${f.received.length}`).join(', ')}), ${twice} twice; ` +
          `outbox ${byStatus.map((r) => `${r.status} ${r.n} (${r.again} claimed more than once)`).join(', ') || 'empty'}, ${left} overdue`,
      );
      report(
        "the killed instance's periodic jobs go on: each survivor ran each after the kill",
        since(runs),
        `last runs: ${runs.map((r) => `${r.name} ${r.job} ${r.at ? `${((r.at - killedAt) / 1000).toFixed(0)} s after the kill` : 'never'}`).join(', ')}`,
      );
    }

    // 7c. The reconciliation takes over a capture the dead instance was making. A card order
    // (the fake Stripe authorises it and sends the signed webhook through nginx) goes through the
    // store's and the driver's steps; its delivery is sent straight to the victim, whose capture
    // call Stripe leaves unanswered (and undone); the victim is killed while it waits. The
    // delivery committed capture_requested_at: only the survivors' reconciliation (every
    // PAYMENT_RECONCILE_EVERY_SECONDS) can capture it now, once, with the same idempotency key.
    {
      const direct = (i: Instance) => `http://127.0.0.1:${i.port}`;
      const token = customerTokens[0];
      const methods = await call(lb, 'GET', '/api/v1/payment-methods', undefined, token);
      const card = (methods.body?.data ?? []).find((m: any) => m.code === 'card');
      const placed = await call(lb, 'POST', '/api/v1/customer/orders', cartBody(shop, addresses[0]), token);
      const orderId = placed.body?.data?.order_id as number;
      const paid = await call(lb, 'POST', '/api/v1/payments', { order_id: orderId, payment_method_id: card?.id }, token, {
        'Idempotency-Key': randomUUID(),
      });
      const [payment] = await sql<{ id: number; provider_ref: string }[]>('select id, provider_ref from payments where order_id = ?', [
        orderId,
      ]);
      const paymentStatus = async () =>
        (await sql<{ status: string }[]>('select status from payments where id = ?', [payment?.id ?? 0]))[0]?.status;
      const confirmed = await fetch(`${stripeUrl}/_fake/payment_intents/${payment?.provider_ref}/confirm?outcome=authorized`, {
        method: 'POST',
      }).then((r) => r.status);
      await waitFor(async () => (await paymentStatus()) === 'authorized', 15_000);
      const steps: number[] = [];
      for (const step of ['accept', 'preparing', 'ready'])
        steps.push((await call(lb, 'POST', `/api/v1/store/orders/${orderId}/${step}`, undefined, ownerToken)).status);
      // The load leaves orders waiting for the two drivers, and a free driver takes the oldest:
      // they are carried here (both drivers at once, each delivery frees its driver for the next)
      // until this order, the newest, has a driver.
      let driverToken: string | undefined;
      let cleared = 0;
      const clearedFrom = Date.now();
      const assignedBy = clearedFrom + 90_000;
      while (Date.now() < assignedBy) {
        const [assigned] = await sql<{ phone_number: string }[]>(
          `select u.phone_number from orders o join drivers d on d.id = o.driver_id join users u on u.id = d.user_id where o.id = ?`,
          [orderId],
        );
        driverToken = assigned ? driverTokens[DRIVERS.indexOf(assigned.phone_number)] : undefined;
        if (driverToken) break;
        const moved = await Promise.all(
          DRIVERS.map(async (phone, d) => {
            const held = await sql<{ id: number; status: string }[]>(
              `select o.id, o.status from orders o join drivers dr on dr.id = o.driver_id join users u on u.id = dr.user_id
               where u.phone_number = ? and o.status in ('ready_for_pickup', 'picked_up') order by o.id`,
              [phone],
            );
            for (const o of held) {
              if (o.status === 'ready_for_pickup')
                await call(lb, 'POST', `/api/v1/driver/orders/${o.id}/pickup`, undefined, driverTokens[d]);
              await call(lb, 'POST', `/api/v1/driver/orders/${o.id}/deliver`, undefined, driverTokens[d]);
            }
            // A free driver's position is what offers it the waiting orders.
            if (!held.length)
              await call(lb, 'POST', '/api/v1/driver/location', { latitude: shop.lat + d * 0.0005, longitude: shop.lng }, driverTokens[d]);
            return held.length;
          }),
        );
        cleared += moved.reduce((a, b) => a + b, 0);
        if (!moved.some(Boolean)) await sleep(500);
      }
      const clearedIn = (Date.now() - clearedFrom) / 1000;
      if (driverToken) steps.push((await call(lb, 'POST', `/api/v1/driver/orders/${orderId}/pickup`, undefined, driverToken)).status);
      const captures = () => stripe.calls('POST', new RegExp(`^/v1/payment_intents/${payment?.provider_ref}/capture$`));
      stripe.nextCapture('timeout');
      let delivered = 'not sent';
      if (driverToken) {
        void call(direct(victim), 'POST', `/api/v1/driver/orders/${orderId}/deliver`, undefined, driverToken).then(
          (a) => (delivered = String(a.status)),
          () => (delivered = 'cut by the kill'),
        );
      }
      await waitFor(() => captures().length > 0, 20_000);
      const heldCaptures = captures().length;
      const cardKilledAt = Date.now();
      await stopInstance(victim, 'SIGKILL');
      const capturesAtKill = captures().length;
      await waitFor(async () => (await paymentStatus()) === 'captured', RECONCILE_EVERY_SECONDS * 1000 + 30_000);
      const capturedAfter = (Date.now() - cardKilledAt) / 1000;
      const status = await paymentStatus();
      const [order] = await sql<{ status: string }[]>('select status from orders where id = ?', [orderId]);
      const intent = stripe.intents.get(payment?.provider_ref ?? '');
      const keys = new Set(captures().map((c) => c.idempotencyKey));
      report(
        "a capture the killed instance was making is completed by the others' reconciliation, once",
        heldCaptures === 1 &&
          order?.status === 'delivered' &&
          status === 'captured' &&
          intent?.status === 'succeeded' &&
          intent.amount_received === intent.amount &&
          keys.size === 1,
        `card order ${orderId}: payment ${paid.status}, confirmed ${confirmed}, steps ${steps.join(' ')} ` +
          `(${cleared} orders the load left delivered first, in ${clearedIn.toFixed(0)} s, until a driver was assigned); ` +
          `delivery sent to ${victim.name} ` +
          `(${delivered}), order ${order?.status}; ${heldCaptures} capture left unanswered, ${victim.name} killed; payment ${status} ` +
          `${status === 'captured' ? `${capturedAfter.toFixed(1)} s after the kill` : `after ${capturedAfter.toFixed(0)} s of waiting`} ` +
          `(reconciliation every ${RECONCILE_EVERY_SECONDS} s); Stripe: ${captures().length} capture requests (${capturesAtKill} before the kill), ${keys.size} idempotency key, ` +
          `intent ${intent?.status}, ${intent?.amount_received} of ${intent?.amount} received`,
      );
    }
  }

  const failed = results.filter((r) => !r.ok);
  console.log(`\n${results.length - failed.length}/${results.length} checks passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  balancer.kill('SIGTERM');
  await Promise.all(instances.map((i) => stopInstance(i, 'SIGTERM')));
  await database.close(true);
  if (failed.length) console.log(`the instances' and nginx's logs are kept in ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(failed.length ? 1 : 0);
}

/** CPU seconds the whole machine spent (every process, other engineers' too) and its elapsed jiffies' worth of cores. */
function machineCpu(): { busy: number; total: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}

/** CPU seconds of each process by pid (absent once gone). */
function cpuByPid(pids: number[]): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      seconds.set(pid, (Number(after[11]) + Number(after[12])) / 100); // utime, stime
    } catch {
      // gone
    }
  }
  return seconds;
}
/** CPU seconds the processes spent between two readings; one born in between counts from 0. */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Throughput through nginx with the first 1, 2, ... N instances in its upstream (the file
 * rewritten, nginx reloaded), `rounds` times over (1, 2, 3, 1, 2, 3, ...: a drift of the shared
 * machine's load shows as a difference between rounds): two read paths (nearby stores, the
 * customer app's commonest read, and a store's catalog) and checkouts (spread over the customers,
 * each with its own address), `seconds` each. Per instance, its CPU per request it answered
 * (its process_cpu_seconds_total over its http_request_duration_seconds_count); PostgreSQL's (the
 * run's database's backends) and nginx's CPU per request; the machine's busy cores (everyone's
 * work: the load average is printed beside).
 */
async function throughput(
  seconds: number,
  rounds: number,
  c: {
    instances: Instance[];
    balancer: ChildProcess;
    lbPort: number;
    shop: { lat: number; lng: number; storeId: number; productId: number };
    tokens: string[];
    addresses: number[];
  },
) {
  const cpu = async (instance: Instance) => {
    const text = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('process_cpu_seconds_total '));
    return Number(line?.slice(line.lastIndexOf(' ') + 1) ?? 0);
  };
  const lb = `http://127.0.0.1:${c.lbPort}`;
  let next = 0;
  const paths = {
    nearby: { url: `${lb}/api/v1/stores/nearby?lat=${c.shop.lat}&lng=${c.shop.lng}`, connections: 20 },
    catalog: { url: `${lb}/api/v1/store/stores/${c.shop.storeId}/catalog`, connections: 20 },
    checkout: {
      url: `${lb}/api/v1/customer/orders`,
      connections: 10,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Each request as the next customer, to that customer's address: checkouts of one customer
      // wait on each other (the per-customer limits are off for the run, its row lock is not).
      requests: [
        {
          setupRequest: (request: { headers: Record<string, string>; body?: string }) => {
            const k = next++ % c.tokens.length;
            return {
              ...request,
              headers: { ...request.headers, authorization: `Bearer ${c.tokens[k]}` },
              body: JSON.stringify(cartBody(c.shop, c.addresses[k])),
            };
          },
        },
      ],
    },
  };
  // Answers other than 2xx by status, and requests that got none (errors, of which timeouts).
  const notOk = (r: Awaited<ReturnType<typeof autocannon>>) =>
    [
      ...Object.entries(r.statusCodeStats)
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, { count }]) => `${count}× ${code}`),
      ...(r.errors ? [`${r.errors} errors (${r.timeouts} timeouts)`] : []),
    ].join(', ') || '0';
  const rows: string[] = [];
  const base = new Map<string, number>();
  const nginxPids = () => [c.balancer.pid!, ...childrenOf(c.balancer.pid!)];
  for (let round = 1; round <= rounds; round++) {
    for (let n = 1; n <= c.instances.length; n++) {
      const serving = c.instances.slice(0, n);
      fs.writeFileSync(path.join(tmp, 'nginx.conf'), nginxConfig(c.lbPort, serving));
      c.balancer.kill('SIGHUP'); // nginx re-reads its file; old workers finish their requests
      await sleep(1500);
      for (const [name, options] of Object.entries(paths)) {
        const load = os.loadavg()[0];
        // PostgreSQL's side: the backends connected to this run's database (the instances' pools,
        // read before and after: a pool may open connections meanwhile; the machine's PostgreSQL
        // serves other databases too, not counted).
        const backends = async () =>
          (
            await sql<{ pid: number }[]>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')
          ).map((r) => r.pid);
        const before = {
          cpu: await Promise.all(serving.map(cpu)),
          counts: await requestCounts(serving),
          nginx: cpuByPid(nginxPids()),
          postgres: cpuByPid(await backends()),
        };
        const machine0 = machineCpu();
        const result = await autocannon({ ...options, duration: seconds });
        const machine1 = machineCpu();
        const after = {
          cpu: await Promise.all(serving.map(cpu)),
          counts: await requestCounts(serving),
          nginx: cpuByPid(nginxPids()),
          postgres: cpuByPid([...new Set([...before.postgres.keys(), ...(await backends())])]),
        };
        const perInstance = serving.map((instance, i) => {
          // /metrics is served on its own port and counts in neither figure.
          const served = after.counts.get(instance.name)! - before.counts.get(instance.name)!;
          const cpuMs = (after.cpu[i] - before.cpu[i]) * 1000;
          return { name: instance.name, served, ms: cpuMs / Math.max(1, served) };
        });
        const total = result.requests.total;
        const nginxMs = (cpuBetween(before.nginx, after.nginx) * 1000) / Math.max(1, total);
        const postgresMs = (cpuBetween(before.postgres, after.postgres) * 1000) / Math.max(1, total);
        const cores = (machine1.busy - machine0.busy) / seconds;
        if (!base.has(`${round} ${name}`)) base.set(`${round} ${name}`, result.requests.average);
        rows.push(
          `| ${name} | ${n} | ${round} | ${result.requests.average.toFixed(0)} | ${(result.requests.average / base.get(`${round} ${name}`)!).toFixed(2)} | ` +
            `${result.latency.p50} / ${result.latency.p99} | ${perInstance.map((p) => `${p.name} ${p.ms.toFixed(2)} (${p.served})`).join(', ')} | ` +
            `${postgresMs.toFixed(2)} | ${nginxMs.toFixed(2)} | ${cores.toFixed(2)} | ${load.toFixed(1)} | ${notOk(result)} |`,
        );
        console.log(rows[rows.length - 1]);
      }
    }
  }
  console.log(
    `\n| path | instances | round | req/s | ratio to 1 (same round) | p50 / p99 ms | instance CPU ms per request it answered (requests) | PostgreSQL CPU ms per request | nginx CPU ms per request | machine busy cores (of ${os.cpus().length}) | load average (1 min) | not 2xx |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n${rows.join('\n')}`,
  );
}

function addressBody(shop: { lat: number; lng: number }) {
  return { label: 'Cluster', line1: '1 Rue du Test', city: 'Casablanca', latitude: shop.lat, longitude: shop.lng };
}
function cartBody(shop: { storeId: number; productId: number }, addressId: number) {
  return { store_id: shop.storeId, address_id: addressId, items: [{ product_id: shop.productId, quantity: 1 }] };
}
async function orderSeqs(orderId: number): Promise<number[]> {
  const rows = await sql<{ seq: number }[]>('select seq from order_events where order_id = ? order by seq', [orderId]);
  return rows.map((r) => Number(r.seq));
}
async function waitFor(condition: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Each instance's http_request_duration_seconds_count summed over its routes and statuses. */
async function requestCounts(instances: Instance[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const instance of instances) {
    const text = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
    let sum = 0;
    for (const line of text.split('\n'))
      if (line.startsWith('http_request_duration_seconds_count{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    counts.set(instance.name, sum);
  }
  return counts;
}

/**
 * A graphql-ws socket from a given address, by hand: the socket once acknowledged, or the
 * upgrade's refusal status (429 = the per-address cap), or 101 and no socket when it was
 * closed after the upgrade (4429 = the per-user cap).
 */
function rawSocket(
  wsUrl: string,
  token: string,
  localAddress: string,
): Promise<{ status: number; instance: string | null; socket?: WebSocket; closeCode?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(wsUrl, 'graphql-transport-ws', { localAddress });
    let instance: string | null = null;
    ws.once('upgrade', (res) => (instance = (res.headers['x-instance'] as string | undefined) ?? null));
    ws.on('error', (error) => {
      const status = /Unexpected server response: (\d+)/.exec(error.message);
      resolve({ status: status ? Number(status[1]) : 0, instance });
    });
    ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    ws.on('message', (data: Buffer) => {
      if ((JSON.parse(data.toString()) as { type: string }).type === 'connection_ack') resolve({ status: 101, instance, socket: ws });
    });
    ws.once('close', (code) => resolve({ status: 101, instance, closeCode: code }));
  });
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    stopAll();
    process.exit(1);
  });
}
