/**
 * Loads the demo city (src/db/seed/demo-city.ts):
 *   npm run seed -- [--stores 300] [--seed 42] [--reset]
 * `--reset` replaces every store with its catalogue, offers, ads and orders (users stay), in
 * the same transaction as the new city; without it the command refuses a database that already
 * has stores. Uses DATABASE_URL, or the
 * embedded database in DATA_DIR (default .data); migrations are applied first.
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { openDatabase } from '../src/db/orm';
import {
  DEFAULT_SEED,
  DEMO_CITY_STORES,
  isDatabaseEmpty,
  MAX_STORES,
  refreshAfterBulkLoad,
  resetCatalog,
  seedDemoCity,
} from '../src/db/seed/demo-city';

function wholeNumber(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) {
    console.error(`--${name} must be a whole number (got "${text}")`);
    process.exit(2);
  }
  return Number(text);
}

/** `[########------------]  40%  40000/100000 stores  12.3 s` on one rewritten stderr line. */
function progressBar(started: number) {
  const tty = process.stderr.isTTY;
  let lastTenth = -1;
  return (done: number, total: number) => {
    const ratio = total === 0 ? 1 : done / total;
    const width = 30;
    const filled = Math.round(ratio * width);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%  ${done}/${total} stores  ${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (tty) {
      process.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
    } else if (Math.floor(ratio * 10) !== lastTenth) {
      lastTenth = Math.floor(ratio * 10);
      process.stderr.write(`${line}\n`);
    }
  };
}

async function main() {
  const { values } = parseArgs({
    options: { stores: { type: 'string' }, seed: { type: 'string' }, reset: { type: 'boolean', default: false } },
  });
  const stores = wholeNumber('stores', values.stores, DEMO_CITY_STORES);
  const seed = wholeNumber('seed', values.seed, DEFAULT_SEED);
  if (stores < 1 || stores > MAX_STORES) {
    console.error(`--stores must be from 1 to ${MAX_STORES} (got ${stores})`);
    process.exit(2);
  }
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR ?? '.data' });
  try {
    const em = db.orm.em.fork();
    if (!values.reset && !(await isDatabaseEmpty(em))) {
      console.error(
        'The database already has stores. Run again with --reset to replace them with the demo city (this deletes every store, its catalogue, offers, ads and orders).',
      );
      process.exitCode = 1;
      return;
    }
    const started = Date.now();
    // The reset and the new city commit together: a failed seed leaves the old data in place.
    const summary = await em.transactional(async (tx) => {
      if (values.reset) await resetCatalog(tx);
      return seedDemoCity(tx, { stores, seed, onProgress: progressBar(started) });
    });
    await refreshAfterBulkLoad(em);
    if (values.reset) console.error('Replaced every store with its catalogue, offers, ads and orders (users were kept).');
    const seconds = (Date.now() - started) / 1000;
    const { demoAccounts, seed: usedSeed, ...counts } = summary;
    console.log(`Loaded the demo city (seed ${usedSeed}) in ${seconds.toFixed(1)} s:`);
    for (const [name, count] of Object.entries(counts)) console.log(`  ${name.padEnd(16)} ${count}`);
    console.log('\nDemo accounts (in development their code is fixed; no message is sent):');
    for (const account of demoAccounts) {
      const owned = account.stores.length > 0 ? `, owns ${account.stores.map((s) => s.name).join(', ')}` : '';
      console.log(`  ${account.phone}  code ${account.code}  ${account.name} (${account.role}${owned})`);
    }
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
