/**
 * The home screen's bounded store blocks (index walks, src/modules/stores/home-query.ts) and
 * bounded search answer exactly what the straightforward queries answer: every deliverer (every
 * name match) ranked. Both run on a seeded city, at the centre, at seeded random points, at sea
 * and without a point, with walks long and short enough to take either path.
 */
import 'reflect-metadata';
import { EntityManager } from '@mikro-orm/postgresql';
import { MikroORM } from '@mikro-orm/core';
import { Database, ormOptions } from '../src/db/orm';
import { CASABLANCA, refreshAfterBulkLoad, seedDemoCity } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';
import { GeoPoint } from '../src/modules/stores/store-query';
import { HOME_WALK, homeBlocksCtes, homeListing, HomeListing, homeStoreBlocks, walkedStoreBlocks } from '../src/modules/stores/home-query';
import { reachIndex } from '../src/modules/stores/reach/reach-loader';
import { ReachAnswers } from '../src/modules/stores/reach/reach-index';
import { homeProductBlocks, productHitsSql } from '../src/modules/catalog/product-query';
import { storeHitsSql } from '../src/modules/stores/store-query';
import { openTestDatabase } from './helpers/database';
import { Context } from '../src/context';
import { readViews } from '../src/common/row-views';
import { activeWindowSql } from '../src/common/active-window';
import { Store } from '../src/modules/stores/store.entity';
import { Product } from '../src/modules/catalog/product.entity';
import { Offer } from '../src/modules/offers/offer.entity';
import { MainCategory } from '../src/modules/stores/main-category.entity';
import { StoreCategory } from '../src/modules/stores/store-category.entity';
import { storeCategoryById, storeIsOpen } from '../src/modules/stores/store.loaders';
import { readHomeScreen } from '../src/modules/discovery/home-screen';
import { readSearchResults } from '../src/modules/discovery/search-results';
import { countStatements } from './helpers/statements';

const STORES = 1000;
const SIZE = 10;
const SOURCES = 50;
let db: Database;
const em = (): EntityManager => db.orm.em.fork();

beforeAll(async () => {
  db = await openTestDatabase();
  await seedDemoCity(em(), { stores: STORES, seed: 5, now: new Date('2026-03-04T12:00:00Z') });
  await refreshAfterBulkLoad(em());
  // The copy of the reach index the home screen lists the deliverers from where they are few.
  await reachIndex(em(), { wait: true });
}, 180_000);

afterAll(async () => {
  await db?.close();
});

/** The home blocks as ranked before the walks, verbatim: every deliverer in the 50 km box, four top-N sorts. */
async function referenceBlocks(point: GeoPoint | undefined, size: number, sources: number) {
  const here = point ? `ll_to_earth(${point.lat}, ${point.lng})` : '';
  const distance = point ? `earth_distance(ll_to_earth(s.latitude, s.longitude), ${here})` : 'null::float8';
  const where = point ? `s.is_active and ${distance} <= s.delivery_radius_km * 1000` : 's.is_active';
  const near = point ? 'distance_m, ' : '';
  const block = (name: string, order: string, n: number) =>
    `(select '${name}'::text as block, id, distance_m, row_number() over (order by ${order}, id) as ord from d order by ${order}, id limit ${n})`;
  const rows = await em().execute<{ block: string; id: number; distance_m: number | null; ord: string }[]>(
    `with d as materialized (select s.id, ${distance} as distance_m, s.rating, s.rating_count, s.order_count from stores s where ${where})
     ${[
       block('top_rated_stores', `rating desc, rating_count desc, ${near}order_count desc`, size),
       block('popular_near_you', `order_count desc, rating desc, ${near}rating_count desc`, size),
       block('stores', point ? 'distance_m' : 'order_count desc, rating desc', 2 * size),
       block('product_sources', 'order_count desc, rating desc', sources),
     ].join(' union all ')}`,
  );
  const blocks: Record<string, { id: number; km: number | null }[]> = {
    top_rated_stores: [],
    popular_near_you: [],
    stores: [],
    product_sources: [],
  };
  for (const r of rows.sort((x, y) => Number(x.ord) - Number(y.ord))) blocks[r.block].push({ id: r.id, km: km(r.distance_m) });
  return blocks;
}

const km = (m: number | null) => (m === null ? null : Math.round(m / 10) / 100);

function points(): { name: string; point?: GeoPoint }[] {
  const rnd = new Random(909);
  const list: { name: string; point?: GeoPoint }[] = [{ name: 'centre', point: CASABLANCA }, { name: 'no point' }];
  for (let k = 0; k < 16; k++) {
    const point = { lat: CASABLANCA.lat + (rnd.next() - 0.5) * 0.45, lng: CASABLANCA.lng + (rnd.next() - 0.5) * 0.45 };
    list.push({ name: `random ${point.lat.toFixed(4)},${point.lng.toFixed(4)}`, point });
  }
  list.push({ name: 'at sea, no store', point: { lat: 34.2, lng: -8.6 } });
  return list;
}

describe('home store blocks at city scale answer like the full ranking', () => {
  it('gives the same stores, order and distances in every block, by either path', async () => {
    let walked = 0;
    let ranked = 0;
    for (const { name, point } of points()) {
      for (const [size, sources, walk] of [
        [SIZE, SOURCES, HOME_WALK],
        [SIZE, SOURCES, 200],
        [SIZE, SOURCES, 40],
        [3, 5, 40],
        [3, 5, 15],
      ]) {
        const expected = await referenceBlocks(point, size, sources);
        const label = `${name} / ${size} and ${sources} / walk ${walk}`;
        const blocks = await homeStoreBlocks(em(), point, size, sources, walk);
        const got = Object.fromEntries(
          Object.entries(blocks).map(([b, list]) => [b, list.map((s) => ({ id: s.id, km: km(s.distanceM) }))]),
        );
        expect({ label, ...got }).toEqual({ label, ...expected });
        if (await walkedStoreBlocks(em(), point, size, sources, walk)) walked++;
        else ranked++;
      }
    }
    // Both paths were compared, and the walks answered where many stores deliver.
    expect(walked).toBeGreaterThan(12);
    expect(ranked).toBeGreaterThan(20);
    expect(await walkedStoreBlocks(em(), CASABLANCA, SIZE, SOURCES, 200)).not.toBeNull();
    expect(await walkedStoreBlocks(em(), { lat: 34.2, lng: -8.6 }, SIZE, SOURCES, HOME_WALK)).toBeNull();
  }, 300_000);

  it('walks indexes in block order without reading store rows or sorting the city', async () => {
    const plan = (
      await em().execute<{ 'QUERY PLAN': string }[]>(
        `explain (analyze, costs off, timing off)
         select id from stores where is_active order by rating desc, rating_count desc fetch first 40 rows with ties`,
      )
    )
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/Index Only Scan using stores_rating_index/);
    expect(plan).toMatch(/Heap Fetches: 0/);
  });
});

/** The blocks as one `homeStoreBlocks` answer, distances as the cards show them. */
async function listedBlocks(point: GeoPoint, size: number, sources: number, walk: number, listing: HomeListing | null) {
  const blocks = await homeStoreBlocks(em(), point, size, sources, walk, listing);
  return Object.fromEntries(Object.entries(blocks).map(([b, list]) => [b, list.map((s) => ({ id: s.id, km: km(s.distanceM) }))]));
}

/** The plan of the store blocks' statement with `listing`, as it ran. */
async function blocksPlan(point: GeoPoint, listing: HomeListing | null): Promise<string> {
  const ctes = homeBlocksCtes(point, SIZE, SOURCES, HOME_WALK, listing);
  const rows = await em().execute<{ 'QUERY PLAN': string }[]>(
    `explain (analyze, costs off, timing off) with ${ctes.sql} select block, id, distance_m, ord from blocks`,
    ctes.params,
  );
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe("home store blocks where few stores deliver, from the reach index's list", () => {
  const index = async (): Promise<ReachAnswers> => (await reachIndex(em(), { wait: true }))!;

  it("ranks the listed deliverers at the list's version, like the full ranking", async () => {
    let listed = 0;
    for (const { name, point } of points()) {
      if (!point) {
        expect(homeListing(em(), point)).toBeNull();
        continue;
      }
      for (const [size, sources, walk] of [
        [SIZE, SOURCES, HOME_WALK],
        [SIZE, SOURCES, 40],
        [3, 5, 15],
      ]) {
        const listing = homeListing(em(), point, walk);
        if (!listing) continue;
        listed++;
        const label = `${name} / ${size} and ${sources} / walk ${walk} / ${listing.ids.length} listed`;
        const expected = await referenceBlocks(point, size, sources);
        expect({ label, ...(await listedBlocks(point, size, sources, walk, listing)) }).toEqual({ label, ...expected });
        // The walks tried first or not: the same blocks.
        const other = { ...listing, skipWalks: !listing.skipWalks };
        expect({ label, ...(await listedBlocks(point, size, sources, walk, other)) }).toEqual({ label, ...expected });
        // The list is what answered: without the block's first store it answers without it.
        const first = expected.stores[0]?.id;
        if (first === undefined) continue;
        const without = { ...listing, ids: listing.ids.filter((id) => id !== first), skipWalks: true };
        const got = await listedBlocks(point, size, sources, walk, without);
        expect({ label, stores: got.stores.map((s) => s.id) }).not.toEqual({ label, stores: expected.stores.map((s) => s.id) });
        // At another version the list is not used: the walks or the box answer, exactly.
        expect({ label, ...(await listedBlocks(point, size, sources, walk, { ...without, stamp: 'other' })) }).toEqual({
          label,
          ...expected,
        });
      }
    }
    // Lists answered at sparse points (and at sea: none listed, none ranked).
    expect(listed).toBeGreaterThan(12);
  }, 300_000);

  it('reads the listed stores by id, without the walks or after them, and the box without a list', async () => {
    // A point where the walks come back short (HOME_WALK at this city's size) and the index lists a few stores.
    await index();
    let point: GeoPoint | undefined;
    for (const p of points()) {
      if (
        p.point &&
        (homeListing(em(), p.point, 1)?.ids.length ?? 0) > 0 &&
        !(await walkedStoreBlocks(em(), p.point, SIZE, SOURCES, HOME_WALK))
      ) {
        point = p.point;
        break;
      }
    }
    expect(point).toBeDefined();
    // The walks' fixed allowance, with which they come back short here (the listing's own is longer).
    const listing = { ...homeListing(em(), point, 1)!, walk: HOME_WALK };
    const byId = new RegExp(`Index Scan using stores_pkey on stores s[^\\n]*rows=${listing.ids.length} loops=1`);
    const read = (plan: string, index: string) =>
      plan.split('\n').filter((line) => line.includes(`using ${index}`) && /rows=[1-9]/.test(line)).length;
    // Without the walks: the listed rows only.
    const first = await blocksPlan(point!, { ...listing, skipWalks: true });
    expect(first).toMatch(byId);
    expect({
      earth: read(first, 'stores_earth_index'),
      popular: read(first, 'stores_popularity_index'),
      rating: read(first, 'stores_rating_index'),
    }).toEqual({
      earth: 0,
      popular: 0,
      rating: 0,
    });
    // After the walks: the nearest walk reads, then the listed rows, not the box.
    const after = await blocksPlan(point!, { ...listing, skipWalks: false });
    expect(after).toMatch(byId);
    expect(read(after, 'stores_earth_index')).toBe(1);
    // At another version: the walk, then the box (the earth index twice), and no row by id.
    const stale = await blocksPlan(point!, { ...listing, stamp: 'other' });
    expect(stale).toMatch(/Index Scan using stores_pkey[^\n]*never executed/);
    expect(read(stale, 'stores_earth_index')).toBe(2);
  });

  it("walks as far as the list's rarity asks where the fixed allowance comes back short, and answers the same", async () => {
    await index();
    const [size, sources, walk] = [3, 5, 15];
    let answered = 0;
    for (const { name, point } of points()) {
      const listed = point && homeListing(em(), point, walk);
      if (!listed || (await walkedStoreBlocks(em(), point, size, sources, walk))) continue;
      // The walks tried, whatever the list's count decided (HOME_WALKS_SKIPPED_FACTOR).
      const listing = { ...listed, skipWalks: false };
      // The fixed allowance came back short; the listing's is longer, the blocks unchanged.
      expect(listing.walk).toBeGreaterThan(walk);
      const expected = await referenceBlocks(point, size, sources);
      const label = `${name} / ${listing.ids.length} listed / walk ${listing.walk}`;
      expect({ label, ...(await listedBlocks(point, size, sources, walk, listing)) }).toEqual({ label, ...expected });
      if (!(await walkedStoreBlocks(em(), point, size, sources, listing.walk))) continue;
      // Where the longer walks fill their blocks, the statement answers by them: no row read by id.
      const ctes = homeBlocksCtes(point, size, sources, walk, listing);
      const plan = (
        await em().execute<{ 'QUERY PLAN': string }[]>(
          `explain (analyze, costs off, timing off) with ${ctes.sql} select block, id, distance_m, ord from blocks`,
          ctes.params,
        )
      )
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      expect({ label, plan }).toEqual({ label, plan: expect.stringMatching(/Index Scan using stores_pkey[^\n]*never executed/) });
      answered++;
    }
    expect(answered).toBeGreaterThan(0);
  }, 120_000);

  it('answers the full ranking when a write moved the version after the index was read', async () => {
    await index();
    const point = points()
      .map((p) => p.point)
      .find((p) => p && (homeListing(em(), p)?.ids.length ?? 0) > 0)!;
    const listing = homeListing(em(), point)!;
    // A store that does not deliver there, best rated of all, now delivers there.
    const [outsider] = await em().execute<{ id: number; delivery_radius_km: number; rating: string; rating_count: number }[]>(
      `select id, delivery_radius_km, rating, rating_count from stores
       where is_active and not (id = any(?::int[])) order by earth_distance(earth, ll_to_earth(?, ?)) limit 1`,
      [`{${listing.ids.join(',')}}`, point.lat, point.lng],
    );
    await em().execute('update stores set delivery_radius_km = 60, rating = 5, rating_count = 1000000 where id = ?', [outsider.id]);
    try {
      const expected = await referenceBlocks(point, SIZE, SOURCES);
      expect(expected.top_rated_stores[0].id).toBe(outsider.id);
      for (const skipWalks of [true, false]) {
        expect({ skipWalks, ...(await listedBlocks(point, SIZE, SOURCES, HOME_WALK, { ...listing, skipWalks })) }).toEqual({
          skipWalks,
          ...expected,
        });
      }
    } finally {
      await em().execute('update stores set delivery_radius_km = ?, rating = ?, rating_count = ? where id = ?', [
        outsider.delivery_radius_km,
        outsider.rating,
        outsider.rating_count,
        outsider.id,
      ]);
      await index(); // the tests after this one answer from a current copy
    }
  });
});

/** The product blocks as drawn before, verbatim: one index walk per block filtering on the stores. */
async function referenceProducts(storeIds: number[], size: number) {
  const visible = `p.is_active and exists (select 1 from menu_categories mc join menus m on m.id = mc.menu_id where mc.id = p.menu_category_id and m.is_active)`;
  const stores = storeIds.length > 0 ? storeIds.join(',') : 'null';
  const block = (name: string, order: string, extra = 'true') =>
    `(select '${name}'::text as block, p.id, row_number() over (order by ${order}) as ord
      from products p where p.store_id in (${stores}) and ${visible} and ${extra} order by ${order} limit ${size})`;
  const rows = await em().execute<{ block: string; id: number; ord: string }[]>(
    [
      block('products', 'p.id desc'),
      block('featured_products', 'p.order_count desc, p.id', 'p.is_featured'),
      block('trending_products', 'p.order_count desc, p.id'),
    ].join(' union all '),
  );
  const blocks: Record<string, number[]> = { products: [], featured_products: [], trending_products: [] };
  for (const r of rows.sort((x, y) => Number(x.ord) - Number(y.ord))) blocks[r.block].push(r.id);
  return blocks;
}

describe('home product blocks answer like the per-block walks', () => {
  it('gives the same products in the same order for the stores of every point', async () => {
    const sets: number[][] = [[]];
    for (const { point } of points()) sets.push((await homeStoreBlocks(em(), point, SIZE, SOURCES)).product_sources.map((s) => s.id));
    const rnd = new Random(77);
    const all = (await em().execute<{ id: number }[]>('select id from stores order by id')).map((r) => r.id);
    for (let k = 0; k < 10; k++) sets.push(all.filter(() => rnd.next() < 0.05));
    let nonEmpty = 0;
    for (const stores of sets) {
      for (const size of [10, 3]) {
        const expected = await referenceProducts(stores, size);
        expect({ stores, ...(await homeProductBlocks(em(), stores, size)) }).toEqual({ stores, ...expected });
        if (expected.featured_products.length > 0) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(20);
  }, 120_000);
});

/** Search as it ranked before the names tables, verbatim: every matching row ranked. */
async function referenceSearch(q: string, limit: number) {
  const term = q.trim();
  const literal = term.replace(/[\\%_]/g, '\\$&');
  const match = (c: string) => `(search_text(${c}) like '%' || search_text(?) || '%' or search_text(?) <% search_text(${c}))`;
  const rank = (c: string) =>
    `(search_text(${c}) like search_text(?) || '%') desc, word_similarity(search_text(?), search_text(${c})) desc`;
  const stores = await em().execute<{ id: number }[]>(
    `select s.id from stores s where s.is_active and ${match('s.name')} order by ${rank('s.name')}, s.rating desc, s.id limit ?`,
    [literal, term, literal, term, limit],
  );
  const products = await em().execute<{ id: number }[]>(
    `select p.id from products p join stores s on s.id = p.store_id
     where p.is_active and exists (select 1 from menu_categories mc join menus m on m.id = mc.menu_id where mc.id = p.menu_category_id and m.is_active)
       and s.is_active and ${match('p.name')}
     order by ${rank('p.name')}, p.order_count desc, p.id limit ?`,
    [literal, term, literal, term, limit],
  );
  return { stores: stores.map((r) => r.id), products: products.map((r) => r.id) };
}

/** Terms: the bench's, typos, accents and case, SQL wildcards, one letter, whole and cut names. */
async function terms(): Promise<string[]> {
  const list = [
    'pizza',
    'piza',
    'pizz',
    'PIZZA',
    ' pizza  ',
    'burger',
    'sushi',
    'cafe',
    'café',
    'CAFÉ',
    'creme',
    'crème',
    'tacos',
    'salad',
    'pharmacie',
    'chicken',
    'chiken',
    'thé',
    'the',
    'coca',
    'coca-cola',
    '33 cl',
    'cl',
    'a',
    'e',
    'z',
    '%',
    '_',
    '\\',
    '%a',
    'a_b',
    '100%',
    '?',
    'pizza?',
    '$1',
    "l'",
    "d'orange",
    'jus d orange',
    'xyzzy',
    'qqqq',
    '.',
    '-',
    'la',
    'de la',
    'house',
    'hous',
    'corner',
    'sbata',
    'maarif',
  ];
  const names = await em().execute<{ name: string }[]>(
    `(select name from stores order by md5(name) limit 15) union all (select name from products order by md5(name) limit 15)`,
  );
  for (const { name } of names) {
    list.push(name, name.slice(0, Math.ceil(name.length / 2)), name.slice(2, 8), name.replace(/[aeiou]/, ''), name.toUpperCase());
  }
  return list;
}

describe('search ranks names, then reads their best rows, like ranking every matching row', () => {
  it('gives the same stores and products in the same order for every term', async () => {
    let nonEmpty = 0;
    let full = 0;
    for (const q of await terms()) {
      for (const limit of [20, 5]) {
        const expected = await referenceSearch(q, limit);
        const got = { stores: await searchStoreIds(q, limit), products: await searchProductIds(q, limit) };
        expect({ q, limit, ...got }).toEqual({ q, limit, ...expected });
        if (expected.stores.length + expected.products.length > 0) nonEmpty++;
        if (expected.stores.length === limit && expected.products.length === limit) full++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(150);
    expect(full).toBeGreaterThan(20);
  }, 300_000);

  it('keeps answering alike after stores and products are added, renamed and deactivated', async () => {
    const tx = em();
    await tx.execute(`update stores set name = 'Pizzeria Nouvelle ' || id where id % 37 = 0`);
    await tx.execute(`update stores set is_active = false where id % 41 = 0`);
    await tx.execute(`update products set name = 'Pizza Crème Fraîche' where id % 53 = 0`);
    await tx.execute(
      `insert into stores (name, slug, address, latitude, longitude, delivery_radius_km, delivery_price_cents, delivery_time, timezone, rating, order_count)
       select 'Zénith Pizza ' || g, 'zenith-pizza-' || g, 'somewhere', 33.57, -7.59, 5, 1000, 30, 'Africa/Casablanca', 5, g from generate_series(1, 30) g`,
    );
    for (const q of ['pizza', 'pizzeria', 'nouvelle', 'zenith', 'zénith piza', 'creme fraiche', 'fraîche', 'crème', 'p']) {
      for (const limit of [20, 5]) {
        const expected = await referenceSearch(q, limit);
        expect({ q, limit, stores: await searchStoreIds(q, limit), products: await searchProductIds(q, limit) }).toEqual({
          q,
          limit,
          ...expected,
        });
      }
    }
    expect((await searchStoreIds('zenith', 20)).length).toBe(20);
    expect((await referenceSearch('nouvelle', 20)).stores.length).toBeGreaterThan(5);
  }, 120_000);

  it("reads a matching name's stores from the name index without reading store rows", async () => {
    const plan = (
      await em().execute<{ 'QUERY PLAN': string }[]>(
        `explain (analyze, costs off, timing off)
         select s.id from stores s where search_text(s.name) = (select search_name from store_search_names limit 1) and s.is_active
         order by s.rating desc, s.id limit 20`,
      )
    )
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toMatch(/Index Only Scan using stores_search_name_index/);
    expect(plan).not.toMatch(/Sort/);
  });
});

/** The ids of search's ranked stores and products, each ranking's statement alone. */
const hitIds = async (hits: { sql: string; params: unknown[] }) =>
  (await em().execute<{ id: number }[]>(hits.sql, hits.params)).map((r) => r.id);
const searchStoreIds = (q: string, limit: number) => hitIds(storeHitsSql(q, limit));
const searchProductIds = (q: string, limit: number) => hitIds(productHitsSql(q, limit));

/** A request's context as far as the reads need one: its own em and loaders, the system clock. */
function requestContext(): Context {
  return { em: em(), loaders: new Map(), services: { clock: { now: () => new Date() } } } as unknown as Context;
}

/** The rows of `ids` as the separate reads answered them (row views of one `select`), in that order. */
async function viewsOf<T extends object>(entity: new () => T, table: string, ids: number[]): Promise<object[]> {
  if (ids.length === 0) return [];
  const found = new Map(
    (await readViews(em(), entity as never, 'x', `from ${table} x where x.id in (?)`, [ids])).map((v) => [(v as { id: number }).id, v]),
  );
  return ids.map((id) => ({ ...found.get(id)! }));
}

const plain = (views: object[]) => views.map((v) => ({ ...v }));
const ids = (views: { id: number }[]) => views.map((v) => v.id);

describe('the home screen and search in one statement each', () => {
  it('answers the blocks, rows, categories, offers and "open now" that the separate reads answer', async () => {
    let primed = 0;
    for (const { name, point } of points()) {
      const expected = await referenceBlocks(point, SIZE, SOURCES);
      const products = await referenceProducts(
        expected.product_sources.map((s) => s.id),
        SIZE,
      );
      // The second request of a process knows the stores' zones: "open now" comes with the rows.
      await readHomeScreen(requestContext(), point, SIZE, SOURCES);
      const ctx = requestContext();
      const { result: home, count } = await countStatements(db.orm, () => readHomeScreen(ctx, point, SIZE, SOURCES));
      expect({ name, count }).toEqual({ name, count: 1 });
      const blocks = { top_rated_stores: home.topRatedStores, popular_near_you: home.popularNearYou, stores: home.stores };
      for (const [block, stores] of Object.entries(blocks)) {
        const want = expected[block];
        expect({ name, block, got: stores.map((s) => ({ id: s.id, km: s.distanceKm })) }).toEqual({ name, block, got: want });
        // Each card is the row the loaders read (every column, timestamps included), with its distance.
        const rows = (await viewsOf(Store, 'stores', ids(stores))).map((row, k) => ({ ...row, distanceKm: want[k].km }));
        expect({ name, block, rows: plain(stores) }).toEqual({ name, block, rows });
        for (const store of stores) expect(Object.getPrototypeOf(store)).toBe(Store.prototype);
        // "Open now" and the category are the loaders' own answers, and read nothing more.
        const fresh = requestContext();
        for (const store of stores) {
          const { result, count: reads } = await countStatements(db.orm, async () => ({
            open: await storeIsOpen(ctx).load(store),
            category: store.category ? (await storeCategoryById(ctx).load(store.category.id))?.name : null,
          }));
          expect({ name, id: store.id, reads, ...result }).toEqual({
            name,
            id: store.id,
            reads: 0,
            open: await storeIsOpen(fresh).load({ id: store.id, timezone: store.timezone }),
            category: store.category ? (await storeCategoryById(fresh).load(store.category.id))?.name : null,
          });
          primed++;
        }
      }
      expect({ name, products: ids(home.products), featured: ids(home.featuredProducts), trending: ids(home.trendingProducts) }).toEqual({
        name,
        products: products.products,
        featured: products.featured_products,
        trending: products.trending_products,
      });
      for (const list of [home.products, home.featuredProducts, home.trendingProducts]) {
        expect(plain(list)).toEqual(await viewsOf(Product, 'products', ids(list)));
      }
      expect(plain(home.mainCategories)).toEqual(
        plain(await readViews(em(), MainCategory, 'c', 'from main_categories c order by c.sort_order asc, c.id asc')),
      );
      expect(plain(home.categories)).toEqual(
        plain(await readViews(em(), StoreCategory, 'c', 'from store_categories c order by c.sort_order asc, c.id asc')),
      );
      expect(plain(home.offers)).toEqual(
        plain(await readViews(em(), Offer, 'o', `from offers o where o.store_id is null and ${activeWindowSql('o')} order by o.id asc`)),
      );
    }
    expect(primed).toBeGreaterThan(300);
  }, 300_000);

  it('answers the stores and products the ranked ids name, as the rows the loaders read', async () => {
    let nonEmpty = 0;
    for (const q of await terms()) {
      const expected = await referenceSearch(q, 20);
      const { result, count } = await countStatements(db.orm, () => readSearchResults(requestContext(), q, 20));
      expect({ q, count, stores: ids(result.stores), products: ids(result.products) }).toEqual({ q, count: 1, ...expected });
      const stores = (await viewsOf(Store, 'stores', expected.stores)).map((row) => ({ ...row, distanceKm: null }));
      expect({ q, stores: plain(result.stores) }).toEqual({ q, stores });
      expect({ q, products: plain(result.products) }).toEqual({ q, products: await viewsOf(Product, 'products', expected.products) });
      if (expected.stores.length > 0 && expected.products.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(30);
  }, 300_000);

  it('answers the same from the prepared statement once its connection keeps one generic plan', async () => {
    if (db.embedded) return; // the embedded database sends the statement unprepared (executePrepared)
    // One pooled connection, so the warm-up below is the connection every term then runs on.
    const one = await MikroORM.init(ormOptions(db.orm.config.get('clientUrl'), 1));
    try {
      const ctx = () => ({ ...requestContext(), em: one.em.fork() }) as Context;
      // PostgreSQL plans the first five executions of a prepared statement for their values.
      for (let k = 0; k < 6; k++) await readSearchResults(ctx(), 'pizza', 20);
      const [cached] = await one.em
        .fork()
        .execute<{ generic_plans: string; custom_plans: string }[]>(
          `select generic_plans, custom_plans from pg_prepared_statements where statement like 'with store_hits as%'`,
        );
      expect(Number(cached.generic_plans)).toBeGreaterThan(0);
      for (const q of await terms()) {
        const expected = await referenceSearch(q, 20);
        const { result, count } = await countStatements(one, () => readSearchResults(ctx(), q, 20));
        expect({ q, count, stores: ids(result.stores), products: ids(result.products) }).toEqual({ q, count: 1, ...expected });
        expect({ q, products: plain(result.products) }).toEqual({ q, products: await viewsOf(Product, 'products', expected.products) });
      }
      const [after] = await one.em
        .fork()
        .execute<{ generic_plans: string; custom_plans: string }[]>(
          `select generic_plans, custom_plans from pg_prepared_statements where statement like 'with store_hits as%'`,
        );
      // Every term after the warm-up ran on the generic plan: none was planned for its values.
      expect(Number(after.custom_plans)).toBe(Number(cached.custom_plans));
    } finally {
      await one.close(true);
    }
  }, 300_000);
});
