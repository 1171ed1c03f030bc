/**
 * The home statement's store blocks at the bench's random points: EXPLAIN (ANALYZE, BUFFERS)
 * per point, with the reach index's listing as the service computes it. Read-only.
 *   DATABASE_URL=postgresql://root@127.0.0.1:5432/test_bench_100000 node -r @swc-node/register scripts/home-plans.ts [--points 300] [--worst 10]
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/orm';
import { CASABLANCA } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';
import { HOME_WALK, homeBlocksCtes, homeListing } from '../src/modules/stores/home-query';
import { reachIndex } from '../src/modules/stores/reach/reach-loader';
import { HOME_BLOCK_SIZE, HOME_PRODUCT_STORES } from '../src/modules/discovery/discovery.service';

interface Node {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Actual Total Time': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Rows Removed by Filter'?: number;
  'Subplan Name'?: string;
  'CTE Name'?: string;
  Plans?: Node[];
}

async function main() {
  const { values } = parseArgs({
    options: {
      points: { type: 'string', default: '300' },
      worst: { type: 'string', default: '8' },
      repeat: { type: 'string', default: '3' },
      // 'old': as before 3455470, the walks skipped at most 0.5 · stores / HOME_WALK listed and their fixed allowance (HOME_WALK) where tried; 'new': the listing's; 'tried': the walks tried wherever listed.
      variants: { type: 'string', default: 'new' },
      verbose: { type: 'boolean', default: false },
    },
  });
  const variants = values.variants.split(',');
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, migrate: false });
  const em = db.orm.em.fork();
  const index = (await reachIndex(em, { wait: true }))!;
  const rnd = new Random(7);
  const points = Array.from({ length: Number(values.points) }, () => ({
    lat: Number((CASABLANCA.lat + (rnd.next() - 0.5) * 0.45).toFixed(5)),
    lng: Number((CASABLANCA.lng + (rnd.next() - 0.5) * 0.45).toFixed(5)),
  }));
  type Row = {
    p: { lat: number; lng: number };
    count: number | null;
    listed: number | null;
    skip: boolean;
    ms: number;
    buffers: number;
    plan: Node;
  };
  const rows = new Map<string, Row[]>(variants.map((v) => [v, []]));
  for (const p of points) {
    const listing = homeListing(em, p);
    const best = new Map<string, { ms: number; buffers: number; plan: Node }>();
    for (let k = 0; k < Number(values.repeat); k++) {
      for (const v of variants) {
        const ctes = homeBlocksCtes(
          p,
          HOME_BLOCK_SIZE,
          HOME_PRODUCT_STORES,
          undefined,
          listing && v === 'old'
            ? { ...listing, walk: HOME_WALK, skipWalks: listing.ids.length <= (0.5 * index.size) / HOME_WALK }
            : listing && v === 'tried'
              ? { ...listing, skipWalks: false }
              : listing,
        );
        const [r] = await em.execute<{ 'QUERY PLAN': [{ Plan: Node; 'Execution Time': number }] }[]>(
          `explain (analyze, buffers, format json) with ${ctes.sql} select block, id, distance_m, ord from blocks`,
          ctes.params,
        );
        const [{ Plan, 'Execution Time': ms }] = r['QUERY PLAN'];
        const buffers = Plan['Shared Hit Blocks'] + Plan['Shared Read Blocks'];
        const b = best.get(v);
        if (!b || ms < b.ms) best.set(v, { ms, buffers, plan: Plan });
      }
    }
    for (const v of variants)
      rows
        .get(v)!
        .push({ p, count: index.count(p), listed: listing?.ids.length ?? null, skip: listing?.skipWalks ?? false, ...best.get(v)! });
  }
  for (const v of variants) {
    const vr = rows.get(v)!;
    const ms = vr.map((r) => r.ms).sort((a, b) => a - b);
    const q = (f: number) => ms[Math.min(ms.length - 1, Math.floor(f * ms.length))].toFixed(1);
    const buf = vr.map((r) => r.buffers).sort((a, b) => a - b);
    console.log(
      `\n== ${v}: ${index.size} stores, ${vr.length} points: execution p50 / p90 / p99 / max ${q(0.5)} / ${q(0.9)} / ${q(0.99)} / ${q(1)} ms, mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(2)}; buffers p50/p99/max ${buf[Math.floor(buf.length / 2)]} / ${buf[Math.floor(buf.length * 0.99)]} / ${buf[buf.length - 1]}`,
    );
    const worst = [...vr].sort((a, b) => b.ms - a.ms).slice(0, Number(values.worst));
    for (const r of worst) {
      const pair = variants
        .map((w) => {
          const o = rows.get(w)!.find((x) => x.p === r.p)!;
          return `${w} ${o.ms.toFixed(1)} ms ${o.buffers} buf`;
        })
        .join(', ');
      console.log(`\n${r.p.lat},${r.p.lng}: deliverers ${r.count}, listed ${r.listed}, skipWalks ${r.skip}: ${pair}`);
      if (!values.verbose) continue;
      const walk = (n: Node, depth: number) => {
        const b = n['Shared Hit Blocks'] + n['Shared Read Blocks'];
        if (b > 50 || n['Actual Total Time'] > 2)
          console.log(
            `${'  '.repeat(depth)}${n['Node Type']}${n['Index Name'] ? ' ' + n['Index Name'] : ''}${n['CTE Name'] ? ' ' + n['CTE Name'] : ''}${n['Subplan Name'] ? ' [' + n['Subplan Name'] + ']' : ''}: rows ${n['Actual Rows'] * n['Actual Loops']}, removed ${n['Rows Removed by Filter'] ?? 0}, ${b} buf, ${n['Actual Total Time'].toFixed(1)} ms`,
          );
        for (const c of n.Plans ?? []) walk(c, depth + 1);
      };
      walk(r.plan, 1);
    }
    const buckets = new Map<string, number[]>();
    for (const r of vr) {
      const key =
        r.listed === null ? (r.count === null ? 'undecided' : 'not listed') : r.skip ? 'listed, walks skipped' : 'listed, walks tried';
      buckets.set(key, [...(buckets.get(key) ?? []), r.ms]);
    }
    for (const [k, vv] of buckets)
      console.log(
        `${k}: ${vv.length} points, mean ${(vv.reduce((a, b) => a + b, 0) / vv.length).toFixed(1)} ms, max ${Math.max(...vv).toFixed(1)}`,
      );
  }
  await db.close();
}

void main();
