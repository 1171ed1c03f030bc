/**
 * Benchmark by ratios, not fixed targets (issue 9; docs/decisions.md "Benchmark"):
 *   npm run bench -- [--stores 10000,100000] [--duration 10] [--connections 32] [--smoke]
 * For each city size it builds (once) a demo city in `<DATABASE_URL's db>_bench_<stores>`,
 * starts four servers as their own processes (scripts/bench-servers.ts: a bare node:http
 * hello, a bare Express 5 hello, a hand-written Express handler running the ads SQL, and the
 * service in production mode), loads each path in turn with autocannon and prints one table:
 * req/s, p50, p99, ratio to the Express hello, ratio to the hand-written handler, RSS.
 * Ratios are taken within one run, so a busy machine moves every row alike. Each service path
 * gets a freshly started service, so what a slow path left queued is not billed to the next.
 * `--smoke` (CI): 300 stores, 1 s per path, 4 connections; fails on any error or non-2xx
 * answer, or when the hand-written handler's body differs from the service's.
 */
import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { openDatabase } from '../src/db/orm';
import { CASABLANCA, refreshAfterBulkLoad, resetCatalog, seedDemoCity } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';

// autocannon ships no types; the part used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  requests?: { setupRequest: (req: { path: string }) => { path: string } }[];
}) => Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; errors: number; timeouts: number; non2xx: number }>;

type Server = { kind: string; process: ChildProcess; url: string };

async function serverDatabase(stores: number): Promise<string> {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('npm run bench needs DATABASE_URL (a PostgreSQL server; the bench creates its own database on it)');
  const url = new URL(server);
  const name = `${url.pathname.slice(1) || 'postgres'}_bench_${stores}`;
  const admin = await MikroORM.init<PostgreSqlDriver>({
    driver: PostgreSqlDriver,
    clientUrl: server,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    allowGlobalContext: true,
  });
  try {
    const exists = await admin.em.execute(`select 1 from pg_database where datname = ?`, [name]);
    if (exists.length === 0) await admin.em.execute(`create database "${name}"`);
  } finally {
    await admin.close(true);
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** The city of `stores` stores in its database (built only when the count differs), and what to ask for. */
async function prepareCity(databaseUrl: string, stores: number) {
  const db = await openDatabase({ databaseUrl });
  try {
    const em = db.orm.em.fork();
    const [{ n }] = await em.execute<{ n: string }[]>('select count(*) as n from stores');
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
    return sample;
  } finally {
    await db.close();
  }
}

function startServer(kind: string, env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', path.join(__dirname, 'bench-servers.ts'), kind], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ kind, process: child, url: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` });
    });
    child.on('exit', (code) => reject(new Error(`bench server ${kind} exited with ${code}`)));
  });
}

/** Resident memory of a server process, in MB (Linux /proc). */
function rssMb(server: Server): number | null {
  try {
    const status = readFileSync(`/proc/${server.process.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return null;
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      stores: { type: 'string', default: '10000,100000' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '32' },
      smoke: { type: 'boolean', default: false },
    },
  });
  const smoke = values.smoke;
  const sizes = (smoke ? '300' : values.stores).split(',').map(Number);
  const duration = smoke ? 1 : Number(values.duration);
  const connections = smoke ? 4 : Number(values.connections);
  if (sizes.some((s) => !Number.isInteger(s) || s < 1) || !(duration > 0) || !(connections > 0)) {
    console.error('--stores takes whole numbers separated by commas; --duration and --connections positive numbers');
    process.exit(2);
  }
  let failed = false;
  for (const stores of sizes) {
    const databaseUrl = await serverDatabase(stores);
    const sample = await prepareCity(databaseUrl, stores);
    const rnd = new Random(stores);
    const pick = <T>(list: readonly T[]) => list[Math.floor(rnd.next() * list.length)];
    // Random points across the city (about 25 km around the centre), and the centre (densest).
    const point = () =>
      `lat=${(CASABLANCA.lat + (rnd.next() - 0.5) * 0.45).toFixed(5)}&lng=${(CASABLANCA.lng + (rnd.next() - 0.5) * 0.45).toFixed(5)}`;
    const centre = `lat=${CASABLANCA.lat}&lng=${CASABLANCA.lng}`;
    const sorts = ['distance', 'rating', 'delivery_fee', 'delivery_time'];
    const filters = ['', '&is_open=1', '&free_delivery=1', '&min_rating=4.5', '&has_offer=1', '&radius=3', '&category_id=3'];
    const terms = ['pizza', 'piza', 'burger', 'sushi', 'cafe', 'creme', 'tacos', 'salad', 'pharmacie', 'chicken'];
    const paths: [string, string, () => string][] = [
      ['node:http hello', 'node-http', () => '/'],
      ['Express 5 hello', 'express', () => '/'],
      ['hand-written ads', 'hand', () => '/api/v1/global/ads'],
      ['ads', 'service', () => '/api/v1/global/ads'],
      ['nearby, centre, distance', 'service', () => `/api/v1/stores/nearby?${centre}`],
      ['nearby, centre, any sort/filter', 'service', () => `/api/v1/stores/nearby?${centre}&sort=${pick(sorts)}${pick(filters)}`],
      ['nearby, random point/sort/filter', 'service', () => `/api/v1/stores/nearby?${point()}&sort=${pick(sorts)}${pick(filters)}`],
      ['home screen, random point', 'service', () => `/api/v1/homepage?${point()}`],
      ['search', 'service', () => `/api/v1/global/search?q=${pick(terms)}`],
      ['catalog', 'service', () => `/api/v1/store/stores/${pick(sample).id}/catalog`],
      ['store details', 'service', () => `/api/v1/store/stores/${pick(sample).slug}`],
      ['store products', 'service', () => `/api/v1/store/products?store_id=${pick(sample).id}`],
      ['healthz', 'service', () => '/healthz'],
    ];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'bench-only-secret-0123456789-abcdefghijklmnop',
      OTP_SENDER: 'whatsapp',
      WHATSAPP_PHONE_NUMBER_ID: 'bench',
      WHATSAPP_ACCESS_TOKEN: 'bench',
    };
    delete env.REDIS_URL;
    const servers = new Map<string, Server>();
    try {
      for (const kind of ['node-http', 'express', 'hand', 'service']) servers.set(kind, await startServer(kind, env));
      const [hand, service] = await Promise.all(
        ['hand', 'service'].map(async (kind) => (await fetch(`${servers.get(kind)!.url}/api/v1/global/ads`)).json()),
      );
      if (!isDeepStrictEqual(hand, service)) {
        console.error('the hand-written ads handler answers differently from the service:', JSON.stringify({ hand, service }));
        failed = true;
      }
      const results: { name: string; rps: number; p50: number; p99: number; rss: number | null }[] = [];
      for (const [name, kind, next] of paths) {
        if (kind === 'service' && name !== 'ads') {
          // A fresh service per path: requests a slow path left queued must not be billed to the next one.
          servers.get(kind)!.process.kill();
          servers.set(kind, await startServer(kind, env));
        }
        const server = servers.get(kind)!;
        const requests = [{ setupRequest: (req: { path: string }) => ({ ...req, path: next() }) }];
        // A warm-up first (JIT, connection pool, caches), left out of the figures.
        if (!smoke) await autocannon({ url: server.url, connections, duration: Math.min(2, duration / 5), requests });
        const result = await autocannon({ url: server.url, connections, duration, requests });
        if (result.errors || result.timeouts || result.non2xx) {
          console.error(`${name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} answers other than 2xx`);
          failed = true;
        }
        results.push({ name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, rss: rssMb(server) });
      }
      const express = results.find((r) => r.name === 'Express 5 hello')!.rps;
      const handRps = results.find((r) => r.name === 'hand-written ads')!.rps;
      console.log(`\n${stores} stores, ${connections} connections, ${duration} s per path\n`);
      console.log('| path | req/s | p50 ms | p99 ms | ÷ Express hello | ÷ hand-written | RSS MB |');
      console.log('|---|---|---|---|---|---|---|');
      for (const r of results) {
        const ofHand = r.name === 'ads' ? `${((100 * r.rps) / handRps).toFixed(0)} %` : '';
        console.log(
          `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${((100 * r.rps) / express).toFixed(1)} % | ${ofHand} | ${r.rss?.toFixed(0) ?? '?'} |`,
        );
      }
    } finally {
      for (const server of servers.values()) server.process.kill();
    }
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
