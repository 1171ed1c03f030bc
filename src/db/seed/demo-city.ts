/**
 * The demo city: a deterministic, realistic catalogue around a centre (Casablanca by default)
 * with stores of every category, menus with options and supplements, offers, ads, owners and
 * the demo accounts. Loaded by `npm start` into an empty development database and by
 * `npm run seed` (any size, for benchmarks). Everything is written in one transaction: a seed
 * that fails leaves nothing behind.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { GLOBAL_OFFERS } from './catalog-data';
import { CASABLANCA, CityPlan } from './city-plan';
import { DEMO_ACCOUNTS, DEMO_PROMO_CODES, DemoAccount, demoPerson } from './demo-accounts';
import { Cell } from './bulk';
import { CityWriter, offerRow, SeedCounts } from './city-writer';

export { CASABLANCA } from './city-plan';
export { DEMO_ACCOUNTS, DEMO_CODE, DEMO_PROMO_CODES } from './demo-accounts';
export type { DemoAccount } from './demo-accounts';
export type { SeedCounts } from './city-writer';

export const DEFAULT_SEED = 42;
/** What `npm start` loads into an empty development database. */
export const DEMO_CITY_STORES = 300;
export const MAX_STORES = 1_000_000;
/** Stores generated and written at a time; progress is reported after each. */
const CHUNK_STORES = 250;
const DAY_MS = 86_400_000;
const CDN = 'https://cdn.example.com';

export interface SeedOptions {
  stores: number;
  seed?: number;
  center?: { lat: number; lng: number };
  /** The instant offers and ads are dated from (default: now). */
  now?: Date;
  onProgress?: (done: number, total: number) => void;
}

export interface SeedSummary extends SeedCounts {
  seed: number;
  demoAccounts: (DemoAccount & { stores: { id: number; name: string; slug: string }[] })[];
}

export class CatalogNotEmptyError extends Error {
  constructor() {
    super('The database already has stores: the demo city is only loaded into a database without any (reset it first).');
    this.name = 'CatalogNotEmptyError';
  }
}

/** True when there is no store yet: the demo city may be loaded. */
export async function isDatabaseEmpty(em: EntityManager): Promise<boolean> {
  const [row] = await em.execute<{ empty: boolean }[]>('select not exists (select 1 from stores) as empty');
  return row.empty;
}

/** Tables of the catalogue, emptied by resetCatalog. */
const CATALOG_TABLES = [
  'main_categories',
  'store_categories',
  'stores',
  'store_opening_hours',
  'menus',
  'menu_categories',
  'products',
  'product_option_groups',
  'product_option_values',
  'product_supplements',
  'offers',
  'ads',
  'store_search_names',
  'product_search_names',
];

/**
 * Deletes every store with its catalogue, offers and ads, and (through their foreign keys)
 * the orders and promo codes that refer to stores. Users are kept. The notification outbox has
 * no foreign key to follow (migration outbox_targets), so it is named: its rows would otherwise
 * outlive their orders and collide with the new orders that take their ids again.
 */
export async function resetCatalog(em: EntityManager): Promise<void> {
  await em.execute(`truncate ${CATALOG_TABLES.map((t) => `"${t}"`).join(', ')}, notification_outbox restart identity cascade`);
}

/**
 * After a bulk load (outside its transaction): fresh planner statistics (without them the
 * planner guessed 3 stores where 50 000 matched) and a visibility map, so the covering
 * delivery-area index answers nearby counts without visiting store rows (index-only scans).
 */
export async function refreshAfterBulkLoad(em: EntityManager): Promise<void> {
  await em.execute(`vacuum (analyze) ${CATALOG_TABLES.map((t) => `"${t}"`).join(', ')}`);
}

export async function seedDemoCity(em: EntityManager, opts: SeedOptions): Promise<SeedSummary> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const center = opts.center ?? CASABLANCA;
  const now = opts.now ?? new Date();
  if (!Number.isInteger(opts.stores) || opts.stores < 1 || opts.stores > MAX_STORES) {
    throw new RangeError(`stores must be a whole number from 1 to ${MAX_STORES} (got ${opts.stores})`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new RangeError(`seed must be a whole number from 0 to 4294967295 (got ${seed})`);
  if (!(Math.abs(center.lat) <= 85 && Math.abs(center.lng) <= 180)) {
    throw new RangeError('center must have a latitude within ±85 and a longitude within ±180');
  }
  if (Number.isNaN(now.getTime())) throw new RangeError('now must be a valid date');

  return em.transactional(async (tx) => {
    // Two processes starting on one empty database: the second waits, then finds stores.
    await tx.execute(`select pg_advisory_xact_lock(hashtext('demo-city'))`);
    if (!(await isDatabaseEmpty(tx))) throw new CatalogNotEmptyError();
    const plan = new CityPlan(seed, opts.stores, center, now);
    const writer = new CityWriter(tx);
    await writer.categories();
    await writer.users(DEMO_ACCOUNTS.map(demoPerson));
    await writer.drivers(
      DEMO_ACCOUNTS.filter((a) => a.role === 'driver').map((a) => a.phone),
      center,
    );
    await writer.promoCodes(DEMO_PROMO_CODES);
    opts.onProgress?.(0, opts.stores);
    for (let start = 0; start < opts.stores; start += CHUNK_STORES) {
      const end = Math.min(opts.stores, start + CHUNK_STORES);
      const drafts = [];
      for (let index = start; index < end; index++) drafts.push(plan.store(index));
      await writer.stores(drafts);
      opts.onProgress?.(end, opts.stores);
    }
    await writer.offers(globalOffers(plan, now));
    await writer.ads(ads(plan, writer, now));
    return {
      seed,
      ...writer.counts,
      demoAccounts: DEMO_ACCOUNTS.map((a) => ({ ...a, stores: writer.storesByOwner.get(a.phone) ?? [] })),
    };
  });
}

/** 3 to 5 platform-wide offers running now: the home screen banners. */
function globalOffers(plan: CityPlan, now: Date): Cell[][] {
  const rnd = plan.random;
  const at = (days: number) => new Date(now.getTime() + days * DAY_MS).toISOString();
  return GLOBAL_OFFERS.slice(0, rnd.int(3, 5)).map((o) =>
    offerRow(
      {
        title: o.title,
        description: o.description,
        discount: o.discount,
        token: plan.token(),
        image: `${CDN}/offers/${o.slug}.jpg`,
        startsAt: at(-rnd.int(1, 10)),
        endsAt: rnd.chance(0.3) ? null : at(rnd.int(10, 40)),
      },
      null,
    ),
  );
}

/** 6 to 8 banners opening a store or a product; the last is switched off, the one before has ended. */
function ads(plan: CityPlan, writer: CityWriter, now: Date): Cell[][] {
  const rnd = plan.random;
  const at = (days: number) => new Date(now.getTime() + days * DAY_MS).toISOString();
  const count = rnd.int(6, 8);
  const stores = rnd.sample(writer.adStores, count);
  const products = rnd.sample(writer.adProducts, count);
  const rows: Cell[][] = [];
  for (let k = 0; k < count; k++) {
    const product = k % 2 === 1 ? products.shift() : undefined;
    const store = product ? undefined : stores.shift();
    if (!product && !store) break;
    const title = product ? `Try the ${product.productName} at ${product.storeName}` : `Order from ${store!.storeName}`;
    const window = k === count - 2 ? [at(-30), at(-2)] : k === 1 ? [at(-5), at(25)] : [null, null];
    rows.push([
      title,
      'image',
      `${CDN}/ads/banner-${k + 1}.jpg`,
      product ? 'product_screen' : 'store_screen',
      product ? product.storeId : store!.storeId,
      product ? product.productId! : null,
      (k + 1) * 10,
      k !== count - 1,
      window[0],
      window[1],
    ]);
  }
  return rows;
}
