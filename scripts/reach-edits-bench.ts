/**
 * Nearby under store edits (docs/decisions.md "City scale: the reach index under store edits"):
 * the service, in process, on DATABASE_URL (a COPY of a bench city: it writes), loaded by
 * autocannon (a child process) on nearby at the centre and at random points, any sort, while
 * a writer changes one store's delivery radius and rating `--edits` times a second. Prints
 * req/s, p50/p99, the service's CPU per request and the share of requests answered by the SQL
 * path (counted from the statements only that path sends).
 *   DATABASE_URL=postgresql://root@127.0.0.1:5432/<copy> node -r @swc-node/register scripts/reach-edits-bench.ts \
 *     [--src /work/main] [--duration 10] [--edits 1] [--connections 32]
 * `--src`: another checkout's src/ (the code before a change), against the same database.
 */
import 'reflect-metadata';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BENCH_SERVICE_ENV } from './bench-service-env';

const CENTRE = { lat: 33.5731, lng: -7.5898 };

async function main() {
  const { values } = parseArgs({
    options: {
      src: { type: 'string', default: path.join(__dirname, '..') },
      duration: { type: 'string', default: '10' },
      edits: { type: 'string', default: '1' },
      connections: { type: 'string', default: '32' },
    },
  });
  Object.assign(process.env, { ...BENCH_SERVICE_ENV, READ_CACHE: 'off' });
  delete process.env.REDIS_URL;
  const src = path.resolve(values.src);
  // The SQL path's own statements: the count of countStores, the window count of the one-scan page
  // (counted on the pg module the checkout under test loads).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const servicePg = require(require.resolve('pg', { paths: [src] })) as typeof pg;
  let sqlPath = 0;
  const client = servicePg.Client.prototype as unknown as { query: (this: pg.Client, ...args: unknown[]) => unknown };
  const original = client.query;
  client.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text;
    if (
      typeof text === 'string' &&
      (/^select count\(\*\) as n from stores s where/.test(text) || text.includes('count(*) over () as total'))
    )
      sqlPath++;
    return original.apply(this, args);
  };
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { createApp } = require(path.join(src, 'src/app')) as typeof import('../src/app');
  const { loadConfig } = require(path.join(src, 'src/config')) as typeof import('../src/config');
  const { createLogger } = require(path.join(src, 'src/common/logger')) as typeof import('../src/common/logger');
  const { openDatabase } = require(path.join(src, 'src/db/orm')) as typeof import('../src/db/orm');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const config = loadConfig(process.env);
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolMax: config.database.poolMax,
    limits: config.database,
    migrate: false,
  });
  const app = await createApp(config, db.orm, createLogger('silent'));
  await new Promise<void>((resolve) => app.httpServer.listen(0, '127.0.0.1', resolve));
  const port = (app.httpServer.address() as { port: number }).port;
  const writer = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await writer.connect();
  const { rows: ids } = await writer.query<{ id: number }>(`select id from stores where is_active order by md5(id::text) limit 1000`);
  let edits = 0;
  const edit = setInterval(
    () => {
      const id = ids[edits++ % ids.length].id;
      writer
        .query(`update stores set delivery_radius_km = 3 + random() * 10, rating = round((random() * 5)::numeric, 1) where id = $1`, [id])
        .catch(() => undefined);
    },
    1000 / Number(values.edits),
  );
  // Warm-up (the index is built at start; nothing measured).
  await load(port, 3, values.connections);
  sqlPath = 0;
  const cpu = process.cpuUsage();
  const result = await load(port, Number(values.duration), values.connections);
  const used = process.cpuUsage(cpu);
  clearInterval(edit);
  const requests = result.requests.total;
  console.log(
    JSON.stringify({
      src,
      edits: `${values.edits}/s`,
      reqPerSec: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      cpuMsPerRequest: +((used.user + used.system) / 1000 / requests).toFixed(2),
      sqlPathShare: +(sqlPath / requests).toFixed(3),
      load: (await import('node:os')).loadavg().map((l) => +l.toFixed(2)),
    }),
  );
  await writer.end();
  app.httpServer.close();
  await db.close();
  process.exit(0);
}

interface Result {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}

/** autocannon in a child process (its CPU is not the service's), nearby at the centre and random points, every sort. */
function load(port: number, seconds: number, connections: string): Promise<Result> {
  const requests = [];
  for (let k = 0; k < 200; k++) {
    const lat = k % 2 ? CENTRE.lat : CENTRE.lat + ((k * 37) % 100) / 400 - 0.125;
    const lng = k % 2 ? CENTRE.lng : CENTRE.lng + ((k * 53) % 100) / 400 - 0.125;
    const sort = ['distance', 'rating', 'delivery_fee', 'delivery_time'][k % 4];
    requests.push({ method: 'GET', path: `/api/v1/stores/nearby?lat=${lat.toFixed(5)}&lng=${lng.toFixed(5)}&sort=${sort}` });
  }
  const script = `
    const autocannon = require('autocannon');
    const requests = ${JSON.stringify(requests)};
    let k = 0;
    autocannon({ url: 'http://127.0.0.1:${port}', connections: ${Number(connections)}, duration: ${seconds},
      requests: [{ setupRequest: (r) => ({ ...r, ...requests[k++ % requests.length] }) }] },
      (err, res) => { if (err) throw err; process.stdout.write(JSON.stringify(res)); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Result) : reject(new Error(`autocannon exited with ${code}`))));
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
