import { notFound } from '../../common/errors';
import { EntityManager } from '@mikro-orm/postgresql';
import { Context } from '../../context';
import { readViews, View, viewObject } from '../../common/row-views';
import { viewerOwns } from './ownership';
import { MainCategory } from './main-category.entity';
import { StoreCategory } from './store-category.entity';
import { Store } from './store.entity';

/**
 * `idOrSlug` as the condition on the store aliased `alias` (spec §4.3 "store ID or slug"): a
 * number that fits an id is an id, anything else a slug (case-insensitive).
 */
export function storeKeyCondition(idOrSlug: string | number, alias: string): { sql: string; param: string | number; key: string } {
  const key = String(idOrSlug).trim();
  return /^\d+$/.test(key) && Number(key) <= 2 ** 31 - 1
    ? { sql: `${alias}.id = ?`, param: Number(key), key }
    : { sql: `${alias}.slug = ?`, param: key.toLowerCase(), key };
}

/** Every main category in display order (read-only views: the list answers them). */
export async function listMainCategories(ctx: Context): Promise<View<MainCategory>[]> {
  return readViews(ctx.em, MainCategory, 'c', 'from main_categories c order by c.sort_order asc, c.id asc');
}

/** Every store category in display order (read-only views: the list answers them). */
export async function listStoreCategories(ctx: Context): Promise<View<StoreCategory>[]> {
  return readViews(ctx.em, StoreCategory, 'c', 'from store_categories c order by c.sort_order asc, c.id asc');
}

/**
 * listMainCategories and listStoreCategories as JSON columns of views (src/common/row-views.ts
 * `viewObject`; null when none), for a statement that reads them beside other rows (the home screen).
 */
export const mainCategoriesJson = (em: EntityManager) =>
  `(select json_agg(${viewObject(em, MainCategory, 'c')} order by c.sort_order asc, c.id asc) from main_categories c)`;
export const storeCategoriesJson = (em: EntityManager) =>
  `(select json_agg(${viewObject(em, StoreCategory, 'c')} order by c.sort_order asc, c.id asc) from store_categories c)`;

/** A store a caller may read from: active, or their own. */
export async function visibleStore(ctx: Context, storeId: number): Promise<Store> {
  const store = await ctx.em.findOne(Store, { id: storeId });
  if (!store || (!store.isActive && !viewerOwns(ctx, store))) throw notFound('Store', storeId);
  return store;
}

/** Counts one more delivered order for "popular" (a step of the delivering transaction). */
export async function countDeliveredOrder(tx: EntityManager, storeId: number): Promise<void> {
  await tx.execute(`update stores set order_count = order_count + 1 where id = ?`, [storeId]);
}

/** The box around every active store, or null when there is none: where the platform operates. */
export async function activeStoresBox(
  em: EntityManager,
): Promise<{ minLat: number; maxLat: number; minLng: number; maxLng: number } | null> {
  const [row] = await em.execute<{ min_lat: number | null; max_lat: number; min_lng: number; max_lng: number }[]>(
    `select min(latitude) as min_lat, max(latitude) as max_lat, min(longitude) as min_lng, max(longitude) as max_lng
     from stores where is_active`,
  );
  return row?.min_lat == null ? null : { minLat: row.min_lat, maxLat: row.max_lat, minLng: row.min_lng, maxLng: row.max_lng };
}
