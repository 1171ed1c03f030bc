/**
 * The one query behind every customer list of stores (nearby; the home blocks in home-query.ts). With a point it
 * keeps only stores whose delivery radius covers it, found through the GiST index on the
 * stored `earth` cube with an earth_box of at most MAX_DELIVERY_RADIUS_KM.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { MAX_DELIVERY_RADIUS_KM } from '../../common/geo';
import { activeWindowSql } from '../../common/active-window';
import { matchingNames, sqlRowCount } from '../../common/name-search';
import { asViews, fromJson, readViews, View, viewColumns } from '../../common/row-views';
import { textsBuiltOnce } from '../../db/entity-manager';
import { localTimesAt, localTimesOf } from './local-time';
import { StoreCategory } from './store-category.entity';
import { Store } from './store.entity';
import { storeCategoryJson } from './store.loaders';
import { filtersStores, ReachAnswers, ReachQuery, REACH_SORTS, ReachSort, weekSeconds } from './reach-index';
import { lastReachIndex, noteReachSnapshot, REACH_SNAPSHOT_SQL, REACH_VERSION_SQL, reachIndex } from './reach-index.loader';

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
  /** Only stores open at this instant, each by its own zone's wall clock (local-time.ts). */
  openAt?: Date;
  hasOffer?: boolean;
  categoryId?: number;
}

export const STORE_SORTS = ['distance', 'rating', 'delivery_fee', 'delivery_time'] as const;
export type StoreSort = (typeof STORE_SORTS)[number] | 'popularity';

export const ORDER_BY: Record<StoreSort, string> = {
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
 * `localTimes`: with the open filter, the wall clocks of its instant (localTimesAt, or a
 * reach index copy's zones when only its stores can match: zoneClocks).
 * `pointOnce`: the point's `earth` as a one-time subquery (`pointEarth`), for prepared statements.
 */
export function storeConditions(
  filter: StoreFilter,
  { box = true, localTimes, pointOnce = false }: { box?: boolean; localTimes?: string; pointOnce?: boolean } = {},
): { where: string; params: unknown[]; distance: string; distanceParams: unknown[] } {
  const conditions = ['s.is_active'];
  const params: unknown[] = [];
  let distance = 'null::float8';
  let distanceParams: unknown[] = [];
  if (filter.point) {
    const here = pointEarth(pointOnce);
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
    if (localTimes === undefined) throw new Error('storeConditions: the open filter needs the wall clocks of its instant (localTimesAt)');
    conditions.push('store_is_open(s.id, ?::jsonb)');
    params.push(localTimes);
  }
  if (filter.hasOffer) conditions.push(`exists (select 1 from offers o where o.store_id = s.id and ${activeWindowSql('o')})`);
  return { where: conditions.join(' and '), params, distance, distanceParams };
}

/**
 * The SQL of a point's `earth` (its two parameters: latitude, longitude). `once`: as a one-time
 * subquery, so a prepared statement's generic plan, where the point is a parameter, computes it
 * once per execution and not once per store it tests (`ll_to_earth` of constants is folded
 * while planning, of parameters it is not: measured 3 → 36 ms for a walk of 10 000 stores). The
 * value is the same either way.
 */
export function pointEarth(once: boolean): string {
  return once ? '(select ll_to_earth(?, ?))' : 'll_to_earth(?, ?)';
}

/** What a store's card shows beyond its row (REST's store summary): its category, open now. */
export interface StoreCard {
  category: View<StoreCategory> | null;
  open: boolean;
}

export interface FoundStores {
  stores: View<Store>[];
  total: number;
  /** Each store's card, read with the page when asked (`cardsAt`) and the reach index answered; otherwise the field resolvers' loaders read them. */
  cards?: Map<View<Store>, StoreCard>;
}

type Page = { limit: number; offset: number };

/** The answer of a statement that returned another reach version than the copy's: thrown away. */
const STALE = Symbol('stale');

/**
 * A page of the stores matching the filter, in the sort's order (ties: nearer, then lower id),
 * and how many match (exact). With a point, the in-process reach index counts and picks the
 * page's candidates and PostgreSQL orders those (fromReachIndex); while the index is being
 * rebuilt, SQL alone (findStoresBySql). `cardsAt`: the request's instant, to read each
 * store's card (category, open then) in the same statement. docs/decisions.md "Nearby: the in-process
 * reach index".
 *
 * One statement when nothing was written since the copy in hand was built: the copy answers
 * and its version is checked by the page's own statement (the snapshot the page is read
 * at). Another version there, and the answer is thrown away: reachIndex checks the version
 * (and starts the rebuild), then the current copy or SQL answers, as strictly as before.
 */
export async function findStores(
  em: EntityManager,
  filter: StoreFilter,
  sort: StoreSort,
  page: Page,
  { cardsAt }: { cardsAt?: Date } = {},
): Promise<FoundStores> {
  if (filter.point && (REACH_SORTS as readonly string[]).includes(sort)) {
    const inHand = lastReachIndex(em);
    let found = inHand && (await fromReachIndex(em, inHand, filter, sort as ReachSort, page, cardsAt));
    if (!inHand || found === STALE) {
      const current = await reachIndex(em);
      found = current && (await fromReachIndex(em, current, filter, sort as ReachSort, page, cardsAt));
    }
    if (found && found !== STALE) return found;
  }
  return findStoresBySql(em, filter, sort, page);
}

/**
 * findStores in SQL alone (while the reach index is rebuilt; the equivalence test checks it
 * too). Sorted by distance, the total is counted from the covering position index and the
 * page is a nearest-first walk of that index (KNN) that stops after offset + limit matches,
 * used whenever the total shows that many exist (so the walk never runs to the end of the
 * city). Otherwise, and for the other sorts, one index-only scan ranks the matching stores
 * and counts them.
 */
export async function findStoresBySql(em: EntityManager, filter: StoreFilter, sort: StoreSort, page: Page): Promise<FoundStores> {
  const localTimes = filter.openAt && (await localTimesAt(em, filter.openAt));
  if (filter.point && sort === 'distance') {
    const total = await countStores(em, filter, localTimes);
    if (total <= page.offset) return { stores: [], total };
    if (total >= page.offset + page.limit)
      return { stores: pageViews(em, await nearestFirst(em, filter, localTimes, page, false)).stores, total };
  }
  const { where, params, distance, distanceParams } = storeConditions(filter, { localTimes });
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
  const total = rows.length > 0 ? Number(rows[0].total) : page.offset > 0 ? await countStores(em, filter, localTimes) : 0;
  return { stores: await loadInOrder(em, rows), total };
}

/**
 * The page and exact total from a copy of the reach index (reach-index.ts): the copy counts
 * the matching stores and names the few that can be on the page; PostgreSQL sorts those by
 * the sort's exact order (its own distances), checks them against the filter once more and
 * returns their rows, their categories with `cardsAt`, and the reach version, in one
 * statement. STALE when that version is not the copy's; null when the copy cannot answer (a
 * store at its boundary): SQL answers then.
 */
async function fromReachIndex(
  em: EntityManager,
  index: ReachAnswers,
  filter: StoreFilter,
  sort: ReachSort,
  page: Page,
  cardsAt: Date | undefined,
): Promise<FoundStores | typeof STALE | null> {
  const openAt = filter.openAt && zoneClocks(index, filter.openAt);
  const cardClock = cardsAt && zoneClocks(index, cardsAt);
  if (openAt === null || cardClock === null) return null;
  const { point, radiusKm, minRating, freeDelivery, categoryId, hasOffer } = filter;
  const query: ReachQuery = { lat: point!.lat, lng: point!.lng, radiusKm, minRating, freeDelivery, categoryId, openAt: openAt?.weeks };
  // Offers are live by the database's now() in SQL and by this clock here: the same instant but for the gap between two statements.
  if (hasOffer) query.offerAt = Date.now();
  const cards = cardClock !== undefined;
  let total: number | null;
  let rows: PageRow[];
  if (sort === 'distance' && !filtersStores(query) && (total = index.count(query)) !== null && total >= page.offset + page.limit) {
    // Nearest first with no filter but the radius: the KNN walk of the position index meets a match at every step.
    rows = await nearestFirst(em, filter, openAt?.json, page, cards);
  } else {
    const found = index.page(query, sort, page.offset, page.limit);
    if (!found) return null;
    total = found.total;
    if (found.candidates.length === 0) {
      const [{ version, snapshot }] = await em.execute<{ version: string; snapshot: string }[]>(
        `select ${REACH_VERSION_SQL} as version, ${REACH_SNAPSHOT_SQL} as snapshot`,
      );
      if (version !== index.version) return STALE;
      noteReachSnapshot(em, index, snapshot);
      return { stores: [], total, cards: cards ? new Map() : undefined };
    }
    const { where, params, distance, distanceParams } = storeConditions(filter, { box: false, localTimes: openAt?.json });
    rows = await em.execute<PageRow[]>(
      `select ${pageColumns(em, distance, cards)} from stores s where s.id in (?) and ${where}
       order by ${ORDER_BY[sort]}, distance_m asc, s.id asc limit ? offset ?`,
      [...distanceParams, found.candidates, ...params, page.limit, found.skip],
    );
  }
  // No row, no version: a write may have taken every candidate away; the current copy or SQL decides.
  if (rows.length === 0 || rows[0].reachVersion !== index.version) return STALE;
  noteReachSnapshot(em, index, rows[0].reachSnapshot);
  const { stores, categories } = pageViews(em, rows);
  if (!cardClock) return { stores, total };
  const open = index.openNow(
    stores.map((s) => s.id),
    cardClock.weeks,
  );
  const cardOf = new Map<View<Store>, StoreCard>();
  stores.forEach((store, k) => {
    const isOpen = open[k];
    if (isOpen !== null) cardOf.set(store, { category: categories[k], open: isOpen });
  });
  return { stores, total, cards: cardOf };
}

/**
 * Each zone of the copy's stores at `at`: the clock map store_is_open takes (JSON) and the
 * index's (seconds from Sunday), the same instant; null if a wall clock is not in
 * storeLocalTimes' format. A copy's map covers every store it holds, and its pages only
 * hold those (the version check makes sure), so no walk of the zones in use is needed.
 */
function zoneClocks(index: ReachAnswers, at: Date): { json: string; weeks: Map<string, number> } | null {
  const second = Math.floor(at.getTime() / 1000);
  const last = lastClocks.get(index);
  if (last?.second === second) return last.clocks;
  const json = localTimesOf(index.zones, at);
  const weeks = new Map<string, number>();
  let clocks: { json: string; weeks: Map<string, number> } | null = { json, weeks };
  for (const [zone, local] of Object.entries(JSON.parse(json) as Record<string, string>)) {
    const t = weekSeconds(local);
    if (t === null) clocks = null;
    else weeks.set(zone, t);
  }
  lastClocks.set(index, { second, clocks });
  return clocks;
}

/** zoneClocks' last answer per copy (every request of a second asks for the same). */
const lastClocks = new WeakMap<ReachAnswers, { second: number; clocks: { json: string; weeks: Map<string, number> } | null }>();

/** A page's row: the store's view columns and what pageColumns adds. */
type PageRow = Record<string, unknown> & {
  distance_m: number | null;
  reachVersion: string;
  reachSnapshot: string;
  cardCategory?: object | null;
};

/**
 * The select list of a page's rows (stores aliased `s`): the store's view columns, its
 * distance, the reach version (read at the rows' snapshot) and, for cards, its category's
 * view as JSON (a primary-key probe per row; categories change without a reach version).
 */
function pageColumns(em: EntityManager, distance: string, cards: boolean): string {
  return pageColumnsBuilt(
    `${cards}:${distance}`,
    () =>
      `${viewColumns(em, Store, 's')}, ${distance} as distance_m, ${REACH_VERSION_SQL} as "reachVersion", ${REACH_SNAPSHOT_SQL} as "reachSnapshot"${cards ? `, ${storeCategoryJson(em, 's')} as "cardCategory"` : ''}`,
  );
}

/** pageColumns' lists, built once each (the distance expressions are code, not values). */
const pageColumnsBuilt = textsBuiltOnce();

/** The stores of page rows (read-only views, each with its distance) and their categories' views (null without one or unread). */
function pageViews(em: EntityManager, rows: PageRow[]): { stores: View<Store>[]; categories: (View<StoreCategory> | null)[] } {
  const categories: (View<StoreCategory> | null)[] = [];
  const columns = rows.map(({ distance_m, reachVersion: _version, reachSnapshot: _snapshot, cardCategory, ...store }) => {
    categories.push(cardCategory ? fromJson(em, StoreCategory, [cardCategory])[0] : null);
    // The rest object is the row's own copy: distanceKm goes last on it, as before (one copy per row, not two).
    (store as Record<string, unknown>).distanceKm = kmOf(distance_m);
    return store;
  });
  return { stores: asViews(em, Store, columns), categories };
}

/** A distance in metres as the answers show it: km rounded to 10 m. */
const kmOf = (metres: number | null) => (metres === null ? null : Math.round(metres / 10) / 100);

/**
 * The page of the nearest matching stores (pageColumns' rows), walking the position index
 * nearest first and stopping after offset + limit matches; only called when that many exist.
 * `<->` orders by chord length, which earth_distance grows with; WITH TIES keeps every store
 * as near as the last one, so re-sorting by (distance, id) gives the full sort's page
 * (PostgreSQL cannot add the id tie-break to an index's KNN order). The walk reads the index
 * only; the page's rows are read by id after.
 */
async function nearestFirst(
  em: EntityManager,
  filter: StoreFilter,
  localTimes: string | undefined,
  page: Page,
  cards: boolean,
): Promise<PageRow[]> {
  const { where, params, distance, distanceParams } = storeConditions(filter, { box: false, localTimes });
  const point = [filter.point!.lat, filter.point!.lng];
  return em.execute<PageRow[]>(
    `select ${pageColumns(em, 'k.distance_m', cards)} from (
       select id, distance_m from (
         select s.id, ${distance} as distance_m from stores s where ${where}
         order by s.earth <-> ll_to_earth(?, ?) fetch first ? rows with ties) k
       order by distance_m, id limit ? offset ?) k
     join stores s on s.id = k.id
     order by k.distance_m, k.id`,
    [...distanceParams, ...params, ...point, page.offset + page.limit, page.limit, page.offset],
  );
}

/** How many active stores match (the `meta.total` of a page); `localTimes`: the open filter's (localTimesAt). */
async function countStores(em: EntityManager, filter: StoreFilter, localTimes: string | undefined): Promise<number> {
  const { where, params } = storeConditions(filter, { localTimes });
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
    store.distanceKm = kmOf(row.distance_m);
    return store;
  });
}

/**
 * The search's stores `(id, prefix, similarity, rating)`, best first: (prefix desc,
 * similarity desc, rating desc, id) is their order. Names are ranked once each
 * (store_search_names) and each matching name gives its best stores from
 * `stores_search_name_index` (index only); stores of worse-ranked names are read only while
 * the page is short. The SQL depends on `limit` only (written into it, so the planner knows it
 * whether the statement is prepared or not); the term is in `params`.
 */
export function storeHitsSql(q: string, limit: number): { sql: string; params: string[] } {
  const names = matchingNames('store_search_names', q);
  const rows = sqlRowCount(limit);
  return {
    sql: `select s.id, n.prefix, n.similarity, s.rating from ${names.sql} n cross join lateral (
       select s.id, s.rating from stores s where search_text(s.name) = n.search_name and s.is_active
       order by s.rating desc, s.id limit ${rows}) s
     order by n.prefix desc, n.similarity desc, s.rating desc, s.id limit ${rows}`,
    params: names.params,
  };
}
