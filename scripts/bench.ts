/**
 * Speed and memory benchmark (targets live here, never in timed tests):
 *   npm run bench -- [--stores 20000] [--requests 600] [--concurrency 4]
 * Builds (once) a demo city of --stores stores in its own database — `<DATABASE_URL's db>_bench`
 * on that server, or an in-memory embedded database — starts the service in process, and
 * fires the customer app's read paths at it over real HTTP. Exits 1 when a target is missed.
 */
import 'reflect-metadata';
import { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/common/logger';
import { openDatabase } from '../src/db/orm';
import { seedDemoCity } from '../src/db/seed/demo-city';

const CENTRE = { lat: 33.5731, lng: -7.5898 };

/**
 * p95 latency targets in milliseconds at 4 requests in flight, and the resident memory ceiling,
 * on a 2-core machine running both the service and PostgreSQL. The demo city is dense: about
 * half of its stores deliver to any central point, so nearby ranks ~10 000 stores per request.
 */
const TARGETS = { nearby: 300, homepage: 400, catalog: 100, search: 400, storeDetails: 60, rssMb: 600 };

async function benchDatabaseUrl(): Promise<string | undefined> {
  const server = process.env.DATABASE_URL;
  if (!server) return undefined;
  const url = new URL(server);
  const name = `${url.pathname.slice(1) || 'postgres'}_bench`;
  const admin = await MikroORM.init<PostgreSqlDriver>({ driver: PostgreSqlDriver, clientUrl: server, entities: [], discovery: { warnWhenNoEntities: false }, allowGlobalContext: true });
  try {
    const exists = await admin.em.execute(`select 1 from pg_database where datname = ?`, [name]);
    if (exists.length === 0) await admin.em.execute(`create database "${name}"`);
  } finally {
    await admin.close(true);
  }
  url.pathname = `/${name}`;
  return url.toString();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main() {
  const { values } = parseArgs({
    options: { stores: { type: 'string', default: '20000' }, requests: { type: 'string', default: '600' }, concurrency: { type: 'string', default: '4' } },
  });
  const stores = Number(values.stores);
  const requests = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const db = await openDatabase({ databaseUrl: await benchDatabaseUrl() });
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', OTP_SENDER: 'log' });
  try {
    const em = db.orm.em.fork();
    const [{ n }] = await em.execute<{ n: string }[]>('select count(*) as n from stores');
    if (Number(n) !== stores) {
      console.error(`building a city of ${stores} stores...`);
      const started = Date.now();
      await em.execute(`truncate stores, store_categories, main_categories, users, ads, offers, promo_codes restart identity cascade`);
      await seedDemoCity(em, { stores, seed: 7, center: CENTRE });
      await em.execute('analyze');
      console.error(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const ids = (await em.execute<{ id: number; slug: string }[]>(`select id, slug from stores where is_active order by random() limit 500`)).map((r) => r);
    const app = await createApp(config, db.orm, createLogger('silent'));
    await new Promise<void>((resolve) => app.httpServer.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(app.httpServer.address() as AddressInfo).port}`;
    const point = () => ({ lat: CENTRE.lat + (Math.random() - 0.5) * 0.15, lng: CENTRE.lng + (Math.random() - 0.5) * 0.15 });
    const store = () => ids[Math.floor(Math.random() * ids.length)];
    const terms = ['pizza', 'piza', 'burger', 'sushi', 'cafe', 'creme', 'tacos', 'salad', 'pharmacie', 'chicken'];
    const scenarios: Record<keyof Omit<typeof TARGETS, 'rssMb'>, () => string> = {
      nearby: () => {
        const p = point();
        return `/api/v1/stores/nearby?lat=${p.lat}&lng=${p.lng}&sort=${['distance', 'rating', 'delivery_fee'][Math.floor(Math.random() * 3)]}`;
      },
      homepage: () => {
        const p = point();
        return `/api/v1/homepage?lat=${p.lat}&lng=${p.lng}`;
      },
      catalog: () => `/api/v1/store/stores/${store().id}/catalog`,
      search: () => `/api/v1/global/search?q=${terms[Math.floor(Math.random() * terms.length)]}`,
      storeDetails: () => `/api/v1/store/stores/${store().slug}`,
    };
    let failed = false;
    console.log(`${stores} stores, ${requests} requests per path, ${concurrency} at a time\n`);
    console.log('path           p50 ms   p95 ms   p99 ms    req/s   target p95');
    for (const [name, next] of Object.entries(scenarios)) {
      const latencies: number[] = [];
      let sent = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (sent < requests) {
            sent++;
            const t = performance.now();
            const res = await fetch(base + next());
            await res.arrayBuffer();
            if (res.status !== 200) throw new Error(`${name} answered ${res.status}`);
            latencies.push(performance.now() - t);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const p95 = percentile(latencies, 95);
      const target = TARGETS[name as keyof typeof scenarios];
      failed ||= p95 > target;
      console.log(
        `${name.padEnd(12)} ${percentile(latencies, 50).toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)} ${percentile(latencies, 99).toFixed(1).padStart(8)} ${(latencies.length / seconds).toFixed(0).padStart(8)}   ${String(target).padStart(6)} ${p95 > target ? 'MISSED' : 'ok'}`,
      );
    }
    const rssMb = process.memoryUsage().rss / 1024 / 1024;
    failed ||= rssMb > TARGETS.rssMb;
    console.log(`\nresident memory ${rssMb.toFixed(0)} MB (target ${TARGETS.rssMb} MB) ${rssMb > TARGETS.rssMb ? 'MISSED' : 'ok'}`);
    await app.close();
    process.exitCode = failed ? 1 : 0;
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
