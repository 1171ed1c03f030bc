/**
 * The servers `npm run bench` loads, one kind per process so each has its own core time and
 * resident memory:  node -r @swc-node/register scripts/bench-servers.ts <kind>
 *   node-http  a bare node:http hello (the ceiling of this machine)
 *   express    a bare Express 5 hello (the baseline every ratio is taken against)
 *   hand       the hand-written twins of the service's read paths (scripts/bench-twins/):
 *              plain Express 5 handlers straight on `pg` that run the statements the service
 *              sends and answer the same JSON (the gateway's own overhead is the service's
 *              cost over theirs; the bench checks the bodies are the same bytes): ads, store
 *              details, nearby, the home screen, search, the catalog and store products
 *   memory     nearby from the reach index and a map of store cards read at start-up, no
 *              statement per request (scripts/bench-twins/nearby-memory.ts; an experiment)
 *   ws-broadcast  a bare \`ws\` server (the fan-out's floor, scripts/bench-fanout.ts): each
 *              \`POST /broadcast?seq=N\` serialises one orderUpdates message stamped with this
 *              clock once and sends it to every open socket
 *   service    the service itself, in production mode, on DATABASE_URL, with the pool size
 *              and session limits `npm start` gives it
 * Each prints `{"port":N}` on stdout once it listens on 127.0.0.1. BENCH_CPU_PROFILE: see
 * profileOnSignal; BENCH_MEMORY_LOG: see logMemory.
 * With BENCH_RECORD_SQL=1 (the service only, started with an IPC channel) every statement its
 * `pg` clients send is recorded; the message "take-sql" answers with the statements recorded
 * since the last one (scripts/bench-plans.ts explains them). Never set in a loaded run.
 */
import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import express from 'express';
import pg from 'pg';
// pg's own serialisation of parameters (Dates, arrays, objects), so a recorded statement is
// replayed with exactly the text the server received. No types ship for this module.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => string | null };

const HELLO = JSON.stringify({ hello: 'world' });

function ready(server: http.Server): void {
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
}

/**
 * BENCH_CPU_PROFILE=<dir> (the service only): each SIGUSR2 starts V8's sampling profiler, the
 * next one stops it and writes `<dir>/service-<pid>-<n>.cpuprofile` (Chrome DevTools reads it).
 * The fan-out bench sends them around its measured events, so the profile is the fan-out's.
 */
async function profileOnSignal(dir: string): Promise<void> {
  const { Session } = await import('node:inspector/promises');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  let running = false;
  let written = 0;
  process.on('SIGUSR2', () => {
    running = !running;
    if (running) return void session.post('Profiler.start');
    void session.post('Profiler.stop').then(({ profile }) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(`${dir}/service-${process.pid}-${++written}.cpuprofile`, JSON.stringify(profile));
    });
  });
}

/**
 * BENCH_MEMORY_LOG=<file> (the service only): every second, one JSON line appended to the file (its time, `at`):
 * the process's memory as V8 and Node count it (RSS, the heap and each of its spaces, external
 * memory and ArrayBuffers), to tell a growing RSS's part (docs/perf/2026-11-27-peak-3.md).
 */
function logMemory(file: string): void {
  const mb = (bytes: number) => Math.round(bytes / 2 ** 17) / 8;
  setInterval(() => {
    const m = process.memoryUsage();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.space_used_size)]));
    const line = {
      pid: process.pid,
      at: Date.now(),
      rss: mb(m.rss),
      heapTotal: mb(m.heapTotal),
      heapUsed: mb(m.heapUsed),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      spaces,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, 1000).unref();
}

export interface RecordedStatement {
  text: string;
  values: (string | null)[];
}

/** Records what every pg client of this process sends (MikroORM's knex and raw SQL alike). */
function recordStatements(): void {
  const recorded: RecordedStatement[] = [];
  const client = pg.Client.prototype as unknown as { query: (this: pg.Client, ...args: unknown[]) => unknown };
  const original = client.query;
  client.query = function (this: pg.Client, ...args: unknown[]) {
    const [config, values] = args;
    const text = typeof config === 'string' ? config : (config as { text?: string } | null)?.text;
    const params = typeof config === 'string' ? values : (config as { values?: unknown }).values;
    if (typeof text === 'string') recorded.push({ text, values: Array.isArray(params) ? params.map(prepareValue) : [] });
    return original.apply(this, args);
  };
  process.on('message', (message) => {
    if (message === 'take-sql') process.send!(recorded.splice(0));
  });
}

async function main(kind: string): Promise<void> {
  if (kind === 'node-http') {
    ready(http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(HELLO)));
  } else if (kind === 'express') {
    const app = express();
    app.get('/', (_req, res) => {
      res.json({ hello: 'world' });
    });
    ready(http.createServer(app));
  } else if (kind === 'hand') {
    const { twinApp } = await import('./bench-twins/app');
    ready(http.createServer((await twinApp(process.env.DATABASE_URL!)).app));
  } else if (kind === 'memory') {
    const { memoryApp } = await import('./bench-twins/nearby-memory');
    ready(http.createServer((await memoryApp(process.env.DATABASE_URL!)).app));
  } else if (kind === 'ws-broadcast') {
    const { WebSocketServer } = await import('ws');
    const server = http.createServer((req, res) => {
      const seq = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('seq'));
      // The service's message for the same event, byte for byte but the time.
      const message = JSON.stringify({
        id: '1',
        type: 'next',
        payload: {
          data: {
            orderUpdates: {
              orderId: 1,
              seq,
              type: 'status',
              status: 'preparing',
              at: new Date().toISOString(),
              driverId: null,
              latitude: null,
              longitude: null,
            },
          },
        },
      });
      for (const socket of wss.clients) socket.send(message);
      res.end();
    });
    const wss = new WebSocketServer({ server });
    ready(server);
  } else if (kind === 'service') {
    if (process.env.BENCH_RECORD_SQL === '1') recordStatements();
    const { createApp } = await import('../src/app');
    const { loadConfig } = await import('../src/config');
    const { createLogger } = await import('../src/common/logger');
    const { openDatabase } = await import('../src/db/orm');
    const config = loadConfig(process.env);
    // As src/main.ts opens it: the pool size and session limits are part of what is measured.
    const db = await openDatabase({
      databaseUrl: config.databaseUrl,
      poolMax: config.database.poolMax,
      limits: config.database,
      sessionName: config.database.sessionName,
    });
    const app = await createApp(config, db.orm, createLogger('silent'));
    if (process.env.BENCH_CPU_PROFILE) await profileOnSignal(process.env.BENCH_CPU_PROFILE);
    if (process.env.BENCH_MEMORY_LOG) logMemory(process.env.BENCH_MEMORY_LOG);
    ready(app.httpServer);
  } else {
    throw new Error(`unknown server kind "${kind}"`);
  }
}

main(process.argv[2]).catch((error) => {
  console.error(error);
  process.exit(1);
});
