/**
 * What nearby's in-process reach index costs at a city's size (docs/decisions.md "City scale:
 * an exact total from an in-process reach index"): build time, memory, and CPU per total and
 * per page at the centre and at random points, for each sort and filter. Read-only on the
 * database (it must hold the store_reach_version table: a migrated database).
 *   DATABASE_URL=postgresql://.../nearby_bench_100000 node -r @swc-node/register scripts/reach-index-scale.ts [--copies 10]
 * `--copies k` also builds an index of k shifted copies of the city's stores (1M from 100k) to
 * measure memory and CPU at a size not seeded.
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/orm';
import { CASABLANCA } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';
import { earthPoint, ReachAnswers, ReachIndex, ReachQuery, ReachSort, ReachStore } from '../src/modules/stores/reach/reach-index';
import { reachIndex, readReachStores } from '../src/modules/stores/reach/reach-loader';

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function measure(index: ReachAnswers & { bytes?: number }, label: string) {
  const rnd = new Random(3);
  const random = Array.from({ length: 300 }, () => ({
    lat: CASABLANCA.lat + (rnd.next() - 0.5) * 0.25,
    lng: CASABLANCA.lng + (rnd.next() - 0.5) * 0.25,
  }));
  const noon = new Map([['Africa/Casablanca', 3 * 86400 + 12 * 3600]]);
  const cases: [string, Partial<ReachQuery>, ReachSort | 'total'][] = [
    ['total', {}, 'total'],
    ['total, min_rating 4', { minRating: 4 }, 'total'],
    ['distance', {}, 'distance'],
    ['distance, is_open', { openAt: noon }, 'distance'],
    ['distance, has_offer', { offerAt: Date.now() }, 'distance'],
    ['rating', {}, 'rating'],
    ['delivery_fee', {}, 'delivery_fee'],
    ['delivery_time', {}, 'delivery_time'],
    ['rating, category + free_delivery', { categoryId: 3, freeDelivery: true }, 'rating'],
  ];
  console.log(`\n${label}: ${index.size} stores, typed arrays ${((index.bytes ?? NaN) / 1e6).toFixed(1)} MB`);
  console.log('| query | centre µs CPU | random points µs CPU (mean of 300) |');
  console.log('|---|---|---|');
  for (const [name, extra, sort] of cases) {
    const run = (points: { lat: number; lng: number }[]) => {
      for (const p of points) {
        const q = { ...p, ...extra };
        if (sort === 'total') index.count(q);
        else index.page(q, sort, 0, 15);
      }
    };
    run(random); // warm-up (JIT)
    let t = cpuMicros();
    for (let k = 0; k < 100; k++) run([CASABLANCA]);
    const centre = (cpuMicros() - t) / 100;
    t = cpuMicros();
    run(random);
    const spread = (cpuMicros() - t) / random.length;
    console.log(`| ${name} | ${centre.toFixed(0)} | ${spread.toFixed(0)} |`);
  }
}

async function main() {
  const { values } = parseArgs({ options: { copies: { type: 'string', default: '0' } } });
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, migrate: false });
  try {
    const heap = () => (process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers) / 1e6;
    const before = heap();
    let t = Date.now();
    const index = (await reachIndex(db.orm.em.fork(), { wait: true }))!;
    console.log(`built from the database in ${Date.now() - t} ms; heap + buffers +${(heap() - before).toFixed(0)} MB after the build`);
    measure(index, 'database city');
    const copies = Number(values.copies);
    if (copies > 0) {
      const stores = await readReachStores(db.orm.em.fork());
      const rnd = new Random(5);
      const many: ReachStore[] = [];
      for (let k = 0; k < copies; k++) {
        for (const s of stores) {
          // Shifted by up to ±0.6 km: the same city, k times as dense.
          const lat = s.lat + (rnd.next() - 0.5) * 0.01;
          const lng = s.lng + (rnd.next() - 0.5) * 0.01;
          const [x, y, z] = earthPoint(lat, lng);
          many.push({ ...s, id: s.id + k * 10_000_000, lat, lng, x, y, z });
        }
      }
      t = Date.now();
      const big = new ReachIndex(many, 'synthetic');
      console.log(`\n${many.length} stores (synthetic) indexed in ${Date.now() - t} ms`);
      measure(big, `${copies} copies`);
    }
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
