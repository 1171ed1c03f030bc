/**
 * What the benches share to run a service: the city of a bench database (built once per size)
 * and the servers of scripts/bench-servers.ts as processes of their own, with their resident
 * memory, and a graphql-ws client as the scripts' followers open one. `npm run bench`
 * (scripts/bench.ts), `npm run peak` (scripts/peak.ts) and `npm run cluster` use them.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { openDatabase } from '../src/db/orm';
import { CASABLANCA, refreshAfterBulkLoad, resetCatalog, seedDemoCity } from '../src/db/seed/demo-city';

export type ServerKind = 'node-http' | 'express' | 'hand' | 'service' | 'ws-broadcast';
export type Server = { kind: ServerKind; process: ChildProcess; url: string };

// autocannon ships no types; the part the benches and the cluster test use.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const autocannon = require('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  overallRate?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Each request as `setupRequest` makes it from autocannon's (its path, headers and body). */
  requests?: { setupRequest: (request: { path: string; headers: Record<string, string>; body?: string }) => unknown }[];
}) => Promise<{
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}>;

/** The city of `stores` stores in its database (built only when the count differs), and what to ask for. */
export async function prepareCity(databaseUrl: string, stores: number) {
  const db = await openDatabase({ databaseUrl, migrate: false });
  try {
    const em = db.orm.em.fork();
    // A migration may add indexes (and index expressions) to a city built before it: the
    // planner needs their statistics, or the run measures plans chosen on guesses.
    const migrator = db.orm.getMigrator();
    const pending = await migrator.getPendingMigrations();
    if (pending.length > 0) {
      console.error(`applying ${pending.length} migration(s) to the ${stores}-store city...`);
      await migrator.up();
    }
    const [{ n }] = await em.execute<{ n: string }[]>('select count(*) as n from stores');
    if (Number(n) === stores && pending.length > 0) await refreshAfterBulkLoad(em);
    if (Number(n) !== stores) {
      console.error(`building a city of ${stores} stores...`);
      const started = Date.now();
      await em.transactional(async (tx) => {
        await resetCatalog(tx);
        await tx.execute(`truncate users, promo_codes restart identity cascade`);
        await seedDemoCity(tx, { stores, seed: 7, center: CASABLANCA });
      });
      await refreshAfterBulkLoad(em);
      console.error(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const sample = await em.execute<{ id: number; slug: string }[]>(
      `select id, slug from stores where is_active order by md5(id::text) limit 500`,
    );
    const [{ size, version }] = await em.execute<{ size: string; version: string }[]>(
      `select pg_database_size(current_database()) as size, current_setting('server_version') as version`,
    );
    return { sample, databaseMb: Number(size) / 2 ** 20, postgres: version };
  } finally {
    await db.close();
  }
}

export function startServer(kind: ServerKind, env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', path.join(__dirname, 'bench-servers.ts'), kind], {
    env,
    // The IPC channel is how a recording service hands over its statements (bench-plans.ts).
    stdio: ['ignore', 'pipe', 'inherit', ...(env.BENCH_RECORD_SQL === '1' ? (['ipc'] as const) : [])],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ kind, process: child, url: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` });
    });
    child.on('exit', (code) => reject(new Error(`bench server ${kind} exited with ${code}`)));
  });
}

export function stopServer(server: Server): void {
  server.process.kill();
}

/** Resident memory of a server process, in MB (Linux /proc). */
export function rssMb(server: Server): number | null {
  return rssOfPid(server.process.pid!);
}

export function rssOfPid(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : null; // a process that died has no VmRSS line until it is reaped
  } catch {
    return null;
  }
}

/**
 * A graphql-ws client signed in with `token`, resolved once the server acknowledged it: no
 * retries (a close is the caller's to count or to reopen), connected at once, pinged every
 * 10 s. `closed` resolves with the close code whenever the socket closes; before the
 * acknowledgement, the promise itself is refused. `webSocketImpl` lets a caller tag its sockets
 * (cluster.ts reads the instance that took each upgrade and binds a local address).
 */
export function openGraphqlSocket(
  url: string,
  token: string,
  webSocketImpl: unknown = WebSocket,
): Promise<{ client: Client; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    let closedWith: (code: number) => void = () => undefined;
    const closed = new Promise<number>((r) => (closedWith = r));
    const client = createClient({
      url,
      webSocketImpl,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: false,
      // A close is expected in these runs (logout, restarts, a killed instance) and counted by the caller, not printed.
      onNonLazyError: () => undefined,
      keepAlive: 10_000,
      on: {
        connected: () => resolve({ client, closed }),
        closed: (event) => {
          const code = (event as { code: number }).code;
          closedWith(code);
          reject(new Error(`socket closed before it was acknowledged (${code})`));
        },
      },
    });
  });
}

/** CPU seconds the whole machine spent (every process, other engineers' too) and the seconds of cores that passed. */
export function machineCpu(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  return { busy: (fields.reduce((a, b) => a + b, 0) - idle) / 100, total: fields.reduce((a, b) => a + b, 0) / 100 };
}

/** CPU seconds (user + system) of some processes, from /proc (0 for those gone). */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // gone
    }
  }
  return ticks / 100;
}
