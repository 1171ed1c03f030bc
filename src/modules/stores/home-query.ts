/**
 * The home screen's store blocks: each is the top N, in its own order, of the active stores
 * that deliver to the point. Where many stores deliver, each block walks an index in its
 * order and stops after N deliverers (bounded whatever the city's size); where few do, all of
 * them are ranked (they are few). Both give the same blocks; docs/decisions.md "Home screen: the store
 * blocks".
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { LISTING_CURRENT_SQL, reachListing, ReachListing } from './reach/reach';
import { GeoPoint, pointEarth, storeConditions } from './store-query';

export const STORE_BLOCKS = ['top_rated_stores', 'popular_near_you', 'stores', 'product_sources'] as const;
export type StoreBlock = (typeof STORE_BLOCKS)[number];
export type BlockStore = { id: number; distanceM: number | null };
type BlockRow = { block: StoreBlock; id: number; distance_m: number | null; ord: number };

/**
 * How many index entries a block's walk reads at most, per store of the block, before the
 * blocks are ranked from every deliverer instead: the walks answer wherever one active store
 * in this many delivers (measured: docs/perf/2026-11-23-home-and-search.md). Where the reach index lists the
 * deliverers, the walks read more (HOME_WALK_MARGIN): the list says how rare they are.
 */
export const HOME_WALK = 200;

/**
 * The deliverers the reach index lists, when it counts at most this many per HOME_WALK-th of
 * its stores: where the walks come back short, home ranks their rows, read by id, instead of
 * every store in the box of the largest radius (28 000 at a sparse point of 100 000 stores).
 * With HOME_WALK entries per store wanted (in an order that does not depend on position) the
 * walks came back short where fewer than about stores / HOME_WALK deliver (measured short up to
 * 1.3 times that); listed points now walk as far as their rarity asks (HOME_WALK_MARGIN), and
 * the list still bounds where the box is replaced. Measured: docs/perf/2026-11-25-home-where-few-deliver.md.
 */
export const HOME_LISTED_PER_WALK = 1.5;

/**
 * The walks are not tried where the listed deliverers are at most √(this · stores): there the
 * listed rows, read by id, cost less than the walks, which read about stores / listed entries
 * per store wanted (HOME_WALK_MARGIN) while the rows grow with the listed; at a point where
 * none delivers the nearest walk alone read the box (3 000–8 000 buffers at 1 000 000 stores).
 * Above it the walks run first and almost always answer. Measured crossover (walks tried
 * against rows by id at the same points): 1 350–1 820 listed at 1 000 000 stores, ~500 at
 * 100 000 (√(3 · stores): 1 714 and 542); docs/perf/2026-11-25-home-where-few-deliver.md.
 */
export const HOME_WALKS_SKIPPED_FACTOR = 3;

/**
 * Where the list says how rare the deliverers are (one in stores / listed), the walks read up
 * to this many times the entries they need on average per store wanted, instead of HOME_WALK:
 * a fixed allowance comes back short wherever about one store in HOME_WALK delivers (half the
 * time at stores / HOME_WALK deliverers), and the listed rows, read by id instead, grow with the
 * city (~7 000 at 1 000 000 stores, 60–100 ms). A walk stops at its block's last store, so
 * the longer allowance costs only where the walk would come back short anyway; a walk reads
 * about stores / listed entries per store wanted whatever the city's size. Measured:
 * docs/perf/2026-11-25-home-where-few-deliver.md.
 */
export const HOME_WALK_MARGIN = 4;

/**
 * Where few stores deliver: the ids the reach index names as delivering there, its `stamp`
 * (LISTING_CURRENT_SQL), whether the walks are skipped, and the entries per store they read
 * when tried (`walk`, at least HOME_WALK).
 */
export interface HomeListing {
  stamp: string;
  ids: number[];
  skipWalks: boolean;
  walk: number;
}

/**
 * The stores delivering to `point` as the reach index names them, when they are few
 * (HOME_LISTED_PER_WALK); null otherwise, without a point, or where the index cannot decide
 * (a store at its boundary, turned off). The statement uses the list only while it is current
 * (homeBlocksCtes), so a list gone stale costs time, not answers.
 */
export function homeListing(em: EntityManager, point: GeoPoint | undefined, walk = HOME_WALK): HomeListing | null {
  return point ? homeListingOf(reachListing(em, point, listedAtMost(walk)), walk) : null;
}

/** How many deliverers a listing may name, of an index of `size` stores (HOME_LISTED_PER_WALK). */
export const listedAtMost = (walk: number) => (size: number) => (HOME_LISTED_PER_WALK * size) / walk;

/** homeListing from the index's list (reachListing, or listingOf a given copy). */
export function homeListingOf(listed: ReachListing | null, walk = HOME_WALK): HomeListing | null {
  if (!listed) return null;
  const { ids, size, stamp } = listed;
  return {
    stamp,
    ids,
    skipWalks: ids.length <= Math.sqrt(HOME_WALKS_SKIPPED_FACTOR * size),
    walk: Math.max(walk, Math.ceil((HOME_WALK_MARGIN * size) / Math.max(ids.length, 1))),
  };
}

/** Each block's order, ties broken as written (distance only with a point). */
function blockOrders(point: boolean): Record<StoreBlock, string> {
  const near = point ? 'distance_m, ' : '';
  return {
    top_rated_stores: `rating desc, rating_count desc, ${near}order_count desc, id`,
    popular_near_you: `order_count desc, rating desc, ${near}rating_count desc, id`,
    stores: point ? 'distance_m, id' : 'order_count desc, rating desc, id',
    product_sources: 'order_count desc, rating desc, id',
  };
}

/** SQL text with its parameters, in the order of its placeholders. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/** Rows per block: the walks' blocks are complete (exact) only when each has this many. */
function wanted(size: number, sources: number): Record<StoreBlock, number> {
  return { top_rated_stores: size, popular_near_you: size, stores: 2 * size, product_sources: sources };
}

/**
 * The blocks of the stores delivering to `point` (every active store without one): `size`
 * stores each, `2 * size` nearest, and the `sources` most ordered-from (whose products the
 * product blocks draw from). One statement whichever path answers (homeBlocksCtes).
 */
export async function homeStoreBlocks(
  em: EntityManager,
  point: GeoPoint | undefined,
  size: number,
  sources: number,
  walk = HOME_WALK,
  listing: HomeListing | null = null,
): Promise<Record<StoreBlock, BlockStore[]>> {
  const ctes = homeBlocksCtes(point, size, sources, walk, listing);
  return toBlocks(await em.execute<BlockRow[]>(`with ${ctes.sql} select block, id, distance_m, ord from blocks`, ctes.params));
}

/**
 * The common table expressions that end in `blocks(block, id, distance_m, ord)`: the home
 * screen's store blocks, to be read in the statement that reads everything else of the screen
 * (issue 9: a round trip costs the service more CPU than the SQL). The index walks answer when
 * each of their blocks is full (`walk_ok`); otherwise the full ranking runs, in the same
 * statement, behind a one-time filter that keeps it from running at all when the walks answered.
 *
 * With a point, `listing` (homeListing; null: none) names the deliverers where the reach index
 * counts few: when the database's reach version is the listing's (`listed`, read in this
 * statement's snapshot, so the list is exactly the deliverers there), the full ranking ranks
 * the listed stores, read by id, instead of the box of the largest radius, and with
 * `skipWalks` the walks read nothing (so the ranking runs), without it they read the listing's
 * `walk` entries per store (HOME_WALK_MARGIN); at another version (a write since the copy was
 * built) the ranking runs as without a listing.
 * The text is the same either way (one prepared statement): only the parameters differ.
 */
export function homeBlocksCtes(
  point: GeoPoint | undefined,
  size: number,
  sources: number,
  walk = HOME_WALK,
  listing: HomeListing | null = null,
): SqlPart {
  const listed = listedCte(point, listing);
  // The list's allowance when it is tried (a stale list's costs time, not answers: a walk's full block is exact at any length).
  const walked = walkedCtes(point, size, sources, listing && !listing.skipWalks ? Math.max(walk, listing.walk) : walk);
  const want = wanted(size, sources);
  const ok = STORE_BLOCKS.map((b) => `count(*) filter (where block = '${b}') = ?`).join(' and ');
  const ranked = rankedCtes(point, size, sources, 'not (select ok from walk_ok) and ', listing);
  return {
    sql: `${listed.sql}${walked.sql},
      walk_ok as (select ${ok} as ok from walked),
      ${ranked.sql},
      blocks as (select * from walked where (select ok from walk_ok) union all select * from ranked)`,
    params: [...listed.params, ...walked.params, ...STORE_BLOCKS.map((b) => want[b]), ...ranked.params],
  };
}

/**
 * `listed(ok, first)`, with a point: whether the database's reach version is the listing's
 * (false without a listing), and whether the list answers without the walks (`skipWalks`).
 * The walks and the full ranking's two sources test them (homeBlocksCtes).
 */
function listedCte(point: GeoPoint | undefined, listing: HomeListing | null): SqlPart {
  if (!point) return { sql: '', params: [] };
  return {
    sql: `listed as (select v.ok, v.ok and ?::boolean as first from (select ${LISTING_CURRENT_SQL} as ok) v), `,
    params: [listing?.skipWalks ?? false, listing?.stamp ?? null],
  };
}

/**
 * The blocks from index walks, or null when a walk ran out (`walk` entries read per store of
 * its block) before its block was full (walkedCtes).
 */
export async function walkedStoreBlocks(
  em: EntityManager,
  point: GeoPoint | undefined,
  size: number,
  sources: number,
  walk: number,
): Promise<Record<StoreBlock, BlockStore[]> | null> {
  const listed = listedCte(point, null);
  const walked = walkedCtes(point, size, sources, walk);
  const want = wanted(size, sources);
  const blocks = toBlocks(
    await em.execute<BlockRow[]>(`with ${listed.sql}${walked.sql} select block, id, distance_m, ord from walked`, [
      ...listed.params,
      ...walked.params,
    ]),
  );
  return STORE_BLOCKS.every((b) => blocks[b].length === want[b]) ? blocks : null;
}

/**
 * `walked(block, id, distance_m, ord)`: the blocks from index walks, complete only if each
 * block has its count. Each walk reads active stores in its block's leading order from an index
 * that carries position and radius (rating: `stores_rating_index`; order count:
 * `stores_popularity_index`; distance: the position index, nearest first), keeps those that
 * deliver, and stops at the block's size WITH TIES, so that re-sorting by the block's full
 * order (distance and id break ties the index cannot) gives the full ranking's block. The walk
 * itself takes its entries WITH TIES too, so no tie group is cut: a full block is exact.
 */
function walkedCtes(point: GeoPoint | undefined, size: number, sources: number, walk: number): SqlPart {
  const { where, params, distance, distanceParams } = storeConditions({ point }, { box: false, pointOnce: true });
  const order = blockOrders(Boolean(point));
  // The popularity walk serves popular_near_you, product_sources and (without a point) stores.
  const popular = Math.max(size, sources, point ? 0 : 2 * size);
  // With a point, the nearest walk runs first; when it comes back short, few stores deliver
  // here and the other walks would read their whole allowance in vain: a one-time filter
  // skips them (the ranked path answers). Where the list answers first (`listed`, homeBlocksCtes),
  // the nearest walk reads nothing, so none of them does.
  const gate = point ? ' and (select count(*) from nearest) = ?' : '';
  const gateParams = point ? [2 * size] : [];
  const delivering = (key: string) => ({
    sql: `select s.id, ${distance} as distance_m, s.rating, s.rating_count, s.order_count
      from (select id, earth, delivery_radius_km, rating, rating_count, order_count, true as is_active
            from stores where is_active order by ${key} fetch first ? rows with ties) s
      where ${where}${gate} order by ${key} fetch first ? rows with ties`,
    params: (n: number) => [...distanceParams, walk * n, ...params, ...gateParams, n],
  });
  const block = (name: StoreBlock, from: string) =>
    `(select ?::text as block, id, distance_m, row_number() over (order by ${order[name]}) as ord from ${from} order by ord limit ?)`;
  const popularWalk = delivering('order_count desc, rating desc');
  const ratingWalk = delivering('rating desc, rating_count desc');
  let nearest = { sql: '', params: [] as unknown[] };
  if (point) {
    nearest = {
      sql: `nearest as materialized (
              select s.id, ${distance} as distance_m from (
                select id, earth, delivery_radius_km, true as is_active, earth <-> ${pointEarth(true)} as knn
                from stores where not (select first from listed) and is_active and ${withinLargestRadius('earth')}
                order by knn fetch first ? rows with ties) s
              where ${where} order by s.knn fetch first ? rows with ties), `,
      params: [...distanceParams, point.lat, point.lng, point.lat, point.lng, walk * 2 * size, ...params, 2 * size],
    };
  }
  return {
    sql: `${nearest.sql}popular as materialized (${popularWalk.sql}),
      walked as materialized (${[
        block('top_rated_stores', `(${ratingWalk.sql}) t`),
        block('popular_near_you', 'popular'),
        block('stores', point ? 'nearest' : 'popular'),
        block('product_sources', 'popular'),
      ].join(' union all ')})`,
    params: [
      ...nearest.params,
      ...popularWalk.params(popular),
      ...['top_rated_stores', ...ratingWalk.params(size), size],
      ...['popular_near_you', size],
      ...['stores', 2 * size],
      ...['product_sources', sources],
    ],
  };
}

/**
 * The blocks ranked from every store that delivers to the point, in one statement: found once
 * through the position index within the largest delivery radius of any active store (few
 * stores deliver where this runs), then a top-N sort per block.
 */
export async function rankedStoreBlocks(
  em: EntityManager,
  point: GeoPoint | undefined,
  size: number,
  sources: number,
): Promise<Record<StoreBlock, BlockStore[]>> {
  const listed = listedCte(point, null);
  const ranked = rankedCtes(point, size, sources, '', null);
  return toBlocks(
    await em.execute<BlockRow[]>(`with ${listed.sql}${ranked.sql} select block, id, distance_m, ord from ranked`, [
      ...listed.params,
      ...ranked.params,
    ]),
  );
}

/**
 * `ranked(block, id, distance_m, ord)`, the full ranking; `gate` (SQL, no parameters) can keep
 * it from reading anything. With a point and a listing, the stores ranked are those the
 * listing names, read by primary key, when `listed` (homeBlocksCtes) holds, and those of the
 * box of the largest radius otherwise: two one-time filters, one branch reads.
 */
function rankedCtes(point: GeoPoint | undefined, size: number, sources: number, gate: string, listing: HomeListing | null): SqlPart {
  const { where, params, distance, distanceParams } = storeConditions({ point }, { box: false, pointOnce: true });
  const order = blockOrders(Boolean(point));
  const block = (name: StoreBlock) =>
    `(select ?::text as block, id, distance_m, row_number() over (order by ${order[name]}) as ord from ranked_d order by ${order[name]} limit ?)`;
  const columns = `s.id, ${distance} as distance_m, s.rating, s.rating_count, s.order_count`;
  // The listed stores are re-checked against the conditions: the list is exact at its version, the check costs nothing.
  const fromList = point
    ? {
        sql: `select ${columns} from stores s where ${gate}(select ok from listed) and s.id = any(?::int[]) and ${where}
       union all `,
        params: [...distanceParams, `{${(listing?.ids ?? []).join(',')}}`, ...params],
      }
    : { sql: '', params: [] };
  const notListed = point ? 'not (select ok from listed) and ' : '';
  const box = point ? `${withinLargestRadius('s.earth')} and ` : '';
  const boxParams = point ? [point.lat, point.lng] : [];
  return {
    sql: `ranked_d as materialized (
       ${fromList.sql}select ${columns} from stores s where ${gate}${notListed}${box}${where}),
     ranked as (${STORE_BLOCKS.map(block).join(' union all ')})`,
    params: [
      ...fromList.params,
      ...distanceParams,
      ...boxParams,
      ...params,
      ...['top_rated_stores', size],
      ...['popular_near_you', size],
      ...['stores', 2 * size],
      ...['product_sources', sources],
    ],
  };
}

/**
 * `earth` is in the box of the largest delivery radius of any active store around the point
 * (its two parameters: the point): no store outside can deliver there. The nearest walk stops
 * at its edge, so where few stores deliver it reads the box's few entries, not its whole allowance.
 */
function withinLargestRadius(earth: string): string {
  return `earth_box(${pointEarth(true)}, (select max(delivery_radius_km) from stores where is_active) * 1000) @> ${earth}`;
}

function toBlocks(rows: BlockRow[]): Record<StoreBlock, BlockStore[]> {
  const blocks = Object.fromEntries(STORE_BLOCKS.map((b) => [b, [] as BlockRow[]])) as Record<StoreBlock, BlockRow[]>;
  for (const row of rows) blocks[row.block].push(row);
  return Object.fromEntries(
    STORE_BLOCKS.map((b) => [
      b,
      blocks[b].sort((x, y) => Number(x.ord) - Number(y.ord)).map((r) => ({ id: r.id, distanceM: r.distance_m })),
    ]),
  ) as Record<StoreBlock, BlockStore[]>;
}
