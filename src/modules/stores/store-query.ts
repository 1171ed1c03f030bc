/**
 * The one query behind every customer list of stores (nearby; the home blocks in home-query.ts). With a point it
 * keeps only stores whose delivery radius covers it, found through the GiST index on the
 * stored `earth` cube with an earth_box of at most MAX_DELIVERY_RADIUS_KM.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { MAX_DELIVERY_RADIUS_KM } from '../../common/geo';
import { activeWindowSql } from '../../common/active-window';
import { matchingNames } from '../../common/name-search';
import { readViews, View } from '../../common/row-views';
import { Store } from './store.entity';
import { filtersStores, ReachQuery, REACH_SORTS, ReachSort, weekSeconds } from './reach-index';
import { reachIndex } from './reach-index.loader';

export interface GeoPoint {
  lat: number;
  lng: number;
}

export interface StoreFilter {
  point?: GeoPoint;
  /** Only stores within this distance of the point, in km (on top of their own radius). */
  radiusKm?: number;
  minRating?: number;
  freeDelivery?: boolean;
  /** Only stores open at these wall-clock times (`storeLocalTimes`, JSON zone -> local time). */
  openAt?: string;
  hasOffer?: boolean;
  categoryId?: number;
}

export const STORE_SORTS = ['distance', 'rating', 'delivery_fee', 'delivery_time'] as const;
export type StoreSort = (typeof STORE_SORTS)[number] | 'popularity';

const ORDER_BY: Record<StoreSort, string> = {
  distance: 'distance_m asc',
  rating: 's.rating desc, s.rating_count desc',
  delivery_fee: '(case when s.free_delivery then 0 else s.delivery_price_cents end) asc',
  delivery_time: 's.delivery_time asc',
  popularity: 's.order_count desc, s.rating desc',
};

/**
 * The SQL `where` of active stores matching the filter, with its parameters in the order of
 * its placeholders, and the distance expression with its own. Every value is bound. With a
 * point, the stores in the earth_box of the largest radius come from the position index
 * (covering: counts and rankings never read the wide store rows); the exact distance checks
 * follow. `box: false` leaves the box out: a nearest-first walk of that index needs none.
 */
export function storeConditions(
  filter: StoreFilter,
  { box = true }: { box?: boolean } = {},
): { where: string; params: unknown[]; distance: string; distanceParams: unknown[] } {
  const conditions = ['s.is_active'];
  const params: unknown[] = [];
  let distance = 'null::float8';
  let distanceParams: unknown[] = [];
  if (filter.point) {
    const here = 'll_to_earth(?, ?)';
    const point = [filter.point.lat, filter.point.lng];
    distance = `earth_distance(s.earth, ${here})`;
    distanceParams = point;
    const boxKm = Math.min(filter.radiusKm ?? MAX_DELIVERY_RADIUS_KM, MAX_DELIVERY_RADIUS_KM);
    if (box) {
      conditions.push(`earth_box(${here}, ?) @> s.earth`);
      params.push(...point, boxKm * 1000);
    }
    // "Within r metres along the surface" as "within the chord of r": the same test
    // (earth_distance = 2R·asin(chord/2R)), but one cube_distance per store instead of the
    // asin of earth_distance, a quarter of the CPU of counting 50 000 stores.
    const chord = `cube_distance(s.earth, ${here})`;
    conditions.push(`${chord} <= 2 * earth() * sin(s.delivery_radius_km * 1000 / (2 * earth()))`);
    params.push(...point);
    if (filter.radiusKm !== undefined) {
      conditions.push(`${chord} <= 2 * earth() * sin(? / (2 * earth()))`);
      params.push(...point, filter.radiusKm * 1000);
    }
  }
  if (filter.minRating !== undefined) {
    conditions.push('s.rating >= ?');
    params.push(filter.minRating);
  }
  if (filter.categoryId !== undefined) {
    conditions.push('s.category_id = ?');
    params.push(filter.categoryId);
  }
  if (filter.freeDelivery) conditions.push('s.free_delivery');
  if (filter.openAt !== undefined) {
    conditions.push('store_is_open(s.id, ?::jsonb)');
    params.push(filter.openAt);
  }
  if (filter.hasOffer) conditions.push(`exists (select 1 from offers o where o.store_id = s.id and ${activeWindowSql('o')})`);
  return { where: conditions.join(' and '), params, distance, distanceParams };
}

/**
 * A page of the stores matching the filter, in the sort's order (ties: nearer, then lower id),
 * and how many match (exact). With a point, the in-process reach index counts and picks the
 * page's candidates and PostgreSQL orders those (fromReachIndex); while the index is being
 * rebuilt, SQL alone (findStoresBySql). docs/decisions.md "City scale".
 */
export async function findStores(
  em: EntityManager,
  filter: StoreFilter,
  sort: StoreSort,
  page: { limit: number; offset: number },
): Promise<{ stores: Store[]; total: number }> {
  return (await fromReachIndex(em, filter, sort, page)) ?? findStoresBySql(em, filter, sort, page);
}

/**
 * findStores in SQL alone (while the reach index is rebuilt; the equivalence test checks it
 * too). Sorted by distance, the total is counted from the covering position index and the
 * page is a nearest-first walk of that index (KNN) that stops after offset + limit matches,
 * used whenever the total shows that many exist (so the walk never runs to the end of the
 * city). Otherwise, and for the other sorts, one index-only scan ranks the matching stores
 * and counts them.
 */
export async function findStoresBySql(
  em: EntityManager,
  filter: StoreFilter,
  sort: StoreSort,
  page: { limit: number; offset: number },
): Promise<{ stores: Store[]; total: number }> {
  if (filter.point && sort === 'distance') {
    const total = await countStores(em, filter);
    if (total <= page.offset) return { stores: [], total };
    if (total >= page.offset + page.limit) return { stores: await loadInOrder(em, await nearestFirst(em, filter, page)), total };
  }
  const { where, params, distance, distanceParams } = storeConditions(filter);
  const order = sort === 'distance' && !filter.point ? ORDER_BY.popularity : ORDER_BY[sort];
  // One scan answers the page and the total (a second scan would cost as much again).
  const rows = await em.execute<{ id: number; distance_m: number | null; total: string }[]>(
    `select s.id, ${distance} as distance_m, count(*) over () as total
     from stores s
     where ${where}
     order by ${order}, ${filter.point ? 'distance_m asc, ' : ''}s.id asc
     limit ? offset ?`,
    [...distanceParams, ...params, page.limit, page.offset],
  );
  const total = rows.length > 0 ? Number(rows[0].total) : page.offset > 0 ? await countStores(em, filter) : 0;
  return { stores: await loadInOrder(em, rows), total };
}

/**
 * The page and exact total from the in-process reach index (reach-index.ts): the index counts
 * the matching stores and names the few that can be on the page; PostgreSQL sorts those by
 * the sort's exact order (its own distances) and checks them against the filter once more.
 * Null when the index cannot answer (being rebuilt, a store at its boundary, an unusual clock
 * map): the SQL below answers then.
 */
async function fromReachIndex(em: EntityManager, filter: StoreFilter, sort: StoreSort, page: { limit: number; offset: number }) {
  if (!filter.point || !(REACH_SORTS as readonly string[]).includes(sort)) return null;
  const query = reachQuery(filter);
  const index = query && (await reachIndex(em));
  if (!query || !index) return null;
  if (sort === 'distance' && !filtersStores(query)) {
    // Nearest first with no filter but the radius: the KNN walk of the position index meets a match at every step.
    const total = index.count(query);
    if (total !== null && total >= page.offset + page.limit) return { stores: await loadInOrder(em, await nearestFirst(em, filter, page)), total };
  }
  const found = index.page(query, sort as ReachSort, page.offset, page.limit);
  if (!found) return null;
  if (found.candidates.length === 0) return { stores: [], total: found.total };
  const { where, params, distance, distanceParams } = storeConditions(filter, { box: false });
  const rows = await em.execute<{ id: number; distance_m: number }[]>(
    `select s.id, ${distance} as distance_m from stores s where s.id in (?) and ${where}
     order by ${ORDER_BY[sort]}, distance_m asc, s.id asc limit ? offset ?`,
    [...distanceParams, found.candidates, ...params, page.limit, found.skip],
  );
  return { stores: await loadInOrder(em, rows), total: found.total };
}

/** The filter in the index's terms; null if the clock map is not storeLocalTimes' whole seconds. */
function reachQuery(filter: StoreFilter): ReachQuery | null {
  const { point, radiusKm, minRating, freeDelivery, categoryId, hasOffer, openAt } = filter;
  const query: ReachQuery = { lat: point!.lat, lng: point!.lng, radiusKm, minRating, freeDelivery, categoryId };
  // Offers are live by the database's now() in SQL and by this clock here: the same instant but for the gap between two statements.
  if (hasOffer) query.offerAt = Date.now();
  if (openAt !== undefined) {
    query.openAt = new Map();
    for (const [zone, local] of Object.entries(JSON.parse(openAt) as Record<string, string>)) {
      const t = weekSeconds(local);
      if (t === null) return null;
      query.openAt.set(zone, t);
    }
  }
  return query;
}

/**
 * The page of the nearest matching stores, walking the position index nearest first and
 * stopping after offset + limit matches; only called when that many exist. `<->` orders by
 * chord length, which earth_distance grows with; WITH TIES keeps every store as near as the
 * last one, so re-sorting by (distance, id) gives the full sort's page (PostgreSQL cannot add
 * the id tie-break to an index's KNN order).
 */
async function nearestFirst(em: EntityManager, filter: StoreFilter, page: { limit: number; offset: number }) {
  const { where, params, distance, distanceParams } = storeConditions(filter, { box: false });
  const point = [filter.point!.lat, filter.point!.lng];
  return em.execute<{ id: number; distance_m: number }[]>(
    `select id, distance_m from (
       select s.id, ${distance} as distance_m from stores s where ${where}
       order by s.earth <-> ll_to_earth(?, ?) fetch first ? rows with ties) k
     order by distance_m, id limit ? offset ?`,
    [...distanceParams, ...params, ...point, page.offset + page.limit, page.limit, page.offset],
  );
}

/** How many active stores match (the `meta.total` of a page). */
export async function countStores(em: EntityManager, filter: StoreFilter): Promise<number> {
  const { where, params } = storeConditions(filter);
  const [row] = await em.execute<{ n: string }[]>(`select count(*) as n from stores s where ${where}`, params);
  return Number(row.n);
}

/**
 * The stores of `rows` keeping the query's order, each with its distance: read-only row views
 * (src/common/row-views.ts), not entities; the lists only answer them (issue 9, per-request cost).
 */
async function loadInOrder(em: EntityManager, rows: { id: number; distance_m: number | null }[]): Promise<View<Store>[]> {
  if (rows.length === 0) return [];
  const views = await readViews(em, Store, 's', 'from stores s where s.id in (?)', [[...new Set(rows.map((r) => r.id))]]);
  const found = new Map(views.map((s) => [s.id, s]));
  return rows.map((row) => {
    const store = found.get(row.id)!;
    store.distanceKm = row.distance_m === null ? null : Math.round(row.distance_m / 10) / 100;
    return store;
  });
}

/**
 * Ids of active stores whose names match, best first (name rank, then rating, then id):
 * storeHitsSql alone.
 */
export async function searchStoreIds(em: EntityManager, q: string, limit: number): Promise<number[]> {
  const hits = storeHitsSql(q, limit);
  return (await em.execute<{ id: number }[]>(hits.sql, hits.params)).map((r) => r.id);
}

/**
 * The search's stores `(id, prefix, similarity, rating)`, best first: (prefix desc,
 * similarity desc, rating desc, id) is their order. Names are ranked once each
 * (store_search_names) and each matching name gives its best stores from
 * `stores_search_name_index` (index only); stores of worse-ranked names are read only while
 * the page is short.
 */
export function storeHitsSql(q: string, limit: number): { sql: string; params: unknown[] } {
  const names = matchingNames('store_search_names', q);
  return {
    sql: `select s.id, n.prefix, n.similarity, s.rating from ${names.sql} n cross join lateral (
       select s.id, s.rating from stores s where search_text(s.name) = n.search_name and s.is_active
       order by s.rating desc, s.id limit ?) s
     order by n.prefix desc, n.similarity desc, s.rating desc, s.id limit ?`,
    params: [...names.params, limit, limit],
  };
}
