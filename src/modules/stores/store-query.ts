/**
 * The SQL of every customer list of stores (nearby; the home blocks in home-query.ts). With a
 * point it keeps only stores whose delivery radius covers it, found through the GiST index on
 * the stored `earth` cube with an earth_box of at most MAX_DELIVERY_RADIUS_KM. The reach
 * index (reach/) answers nearby's pages with these statements too; find-stores.ts picks.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { MAX_DELIVERY_RADIUS_KM } from '../../common/geo';
import { activeWindowSql } from '../../common/active-window';
import { matchingNames, sqlRowCount } from '../../common/name-search';
import { asViews, fromJson, readViews, View, viewColumns } from '../../common/row-views';
import { executePrepared, PreparedValue, textsBuiltOnce } from '../../common/entity-manager';
import { localTimesAt } from './local-time';
import { StoreCategory } from './store-category.entity';
import { Store } from './store.entity';
import { storeCategoryJson } from './store.loaders';

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
): { where: string; params: PreparedValue[]; distance: string; distanceParams: PreparedValue[] } {
  const conditions = ['s.is_active'];
  const params: PreparedValue[] = [];
  let distance = 'null::float8';
  let distanceParams: PreparedValue[] = [];
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

export type Page = { limit: number; offset: number };

/**
 * findStores in SQL alone (the reach index off or rebuilding, or a store at its boundary; the
 * equivalence tests check it too). Sorted by distance, the total is counted from the covering position index and the
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

/** A page's row: the store's view columns and what pageColumns adds. */
export type PageRow = Record<string, unknown> & {
  distance_m: number | null;
  /** `stamp`'s value (pageColumns), read at the rows' snapshot. */
  stamp?: string;
  cardCategory?: object | null;
};

/**
 * The select list of a page's rows (stores aliased `s`): the store's view columns, its
 * distance, `stamp` (an SQL expression without parameters, e.g. what the reach index checks
 * its copy with) and, for cards, its category's view as JSON (a primary-key probe per row).
 */
export function pageColumns(em: EntityManager, distance: string, cards: boolean, stamp?: string): string {
  return pageColumnsBuilt(
    `${cards}:${distance}:${stamp}`,
    () =>
      `${viewColumns(em, Store, 's')}, ${distance} as distance_m${stamp ? `, ${stamp} as stamp` : ''}${cards ? `, ${storeCategoryJson(em, 's')} as "cardCategory"` : ''}`,
  );
}

/** pageColumns' lists, built once each (the distance expressions are code, not values). */
const pageColumnsBuilt = textsBuiltOnce();

/** The stores of page rows (read-only views, each with its distance) and their categories' views (null without one or unread). */
export function pageViews(em: EntityManager, rows: PageRow[]): { stores: View<Store>[]; categories: (View<StoreCategory> | null)[] } {
  const categories: (View<StoreCategory> | null)[] = [];
  const columns = rows.map(({ distance_m, stamp: _stamp, cardCategory, ...store }) => {
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
export async function nearestFirst(
  em: EntityManager,
  filter: StoreFilter,
  localTimes: string | undefined,
  page: Page,
  cards: boolean,
  stamp?: string,
): Promise<PageRow[]> {
  const { where, params, distance, distanceParams } = storeConditions(filter, { box: false, localTimes });
  const point = [filter.point!.lat, filter.point!.lng];
  // On the read pool, unnamed: the text varies with the filter.
  return executePrepared<PageRow>(
    em,
    `select ${pageColumns(em, 'k.distance_m', cards, stamp)} from (
       select id, distance_m from (
         select s.id, ${distance} as distance_m from stores s where ${where}
         order by s.earth <-> ll_to_earth(?, ?) fetch first ? rows with ties) k
       order by distance_m, id limit ? offset ?) k
     join stores s on s.id = k.id
     order by k.distance_m, k.id`,
    [...distanceParams, ...params, ...point, page.offset + page.limit, page.limit, page.offset],
    { named: false },
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
