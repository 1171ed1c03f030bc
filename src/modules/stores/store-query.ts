/**
 * The one query behind every customer list of stores (nearby, home blocks). With a point it
 * keeps only stores whose delivery radius covers it, found through the GiST index on the
 * stored `earth` cube with an earth_box of at most MAX_DELIVERY_RADIUS_KM.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { MAX_DELIVERY_RADIUS_KM } from '../../common/geo';
import { activeWindowSql } from '../../common/active-window';
import { Store } from './store.entity';

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

/** The SQL `where` of active stores matching the filter, with its parameters. */
export function storeConditions(filter: StoreFilter): { where: string; params: unknown[]; distance: string } {
  const conditions = ['s.is_active'];
  const params: unknown[] = [];
  let distance = 'null::float8';
  if (filter.point) {
    // A constant the planner folds once (validated finite numbers: no strings reach SQL).
    const here = `ll_to_earth(${Number(filter.point.lat)}, ${Number(filter.point.lng)})`;
    distance = `earth_distance(s.earth, ${here})`;
    const boxKm = Math.min(filter.radiusKm ?? MAX_DELIVERY_RADIUS_KM, MAX_DELIVERY_RADIUS_KM);
    conditions.push(`earth_box(${here}, ${boxKm * 1000}) @> s.earth`);
    conditions.push(`${distance} <= s.delivery_radius_km * 1000`);
    if (filter.radiusKm !== undefined) conditions.push(`${distance} <= ${filter.radiusKm * 1000}`);
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
  return { where: conditions.join(' and '), params, distance };
}

export async function findStores(
  em: EntityManager,
  filter: StoreFilter,
  sort: StoreSort,
  page: { limit: number; offset: number },
): Promise<{ stores: Store[]; total: number }> {
  const { where, params, distance } = storeConditions(filter);
  const order = sort === 'distance' && !filter.point ? ORDER_BY.popularity : ORDER_BY[sort];
  // One scan answers the page and the total (a second scan would cost as much again).
  const rows = await em.execute<{ id: number; distance_m: number | null; total: string }[]>(
    `select s.id, ${distance} as distance_m, count(*) over () as total
     from stores s
     where ${where}
     order by ${order}, ${filter.point ? 'distance_m asc, ' : ''}s.id asc
     limit ? offset ?`,
    [...params, page.limit, page.offset],
  );
  const total = rows.length > 0 ? Number(rows[0].total) : page.offset > 0 ? await countStores(em, filter) : 0;
  return { stores: await loadInOrder(em, rows), total };
}

/** How many active stores match (the `meta.total` of a page). */
export async function countStores(em: EntityManager, filter: StoreFilter): Promise<number> {
  const { where, params } = storeConditions(filter);
  const [row] = await em.execute<{ n: string }[]>(`select count(*) as n from stores s where ${where}`, params);
  return Number(row.n);
}

/** Loads the stores of `rows` keeping the query's order, each with its distance. */
async function loadInOrder(em: EntityManager, rows: { id: number; distance_m: number | null }[]): Promise<Store[]> {
  if (rows.length === 0) return [];
  const found = new Map((await em.find(Store, { id: { $in: rows.map((r) => r.id) } })).map((s) => [s.id, s]));
  return rows.map((row) => {
    const store = found.get(row.id)!;
    store.distanceKm = row.distance_m === null ? null : Math.round(row.distance_m / 10) / 100;
    return store;
  });
}
