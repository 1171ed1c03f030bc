import { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../common/errors';
import { Context } from '../../context';
import { viewerOwns } from './ownership';
import { MainCategory } from './main-category.entity';
import { StoreCategory } from './store-category.entity';
import { Store } from './store.entity';

/** An active store by id or slug (spec §4.3 "store ID or slug"); 404 otherwise. */
export async function getActiveStore(em: EntityManager, idOrSlug: string | number): Promise<Store> {
  const key = String(idOrSlug).trim();
  const store = /^\d+$/.test(key) && Number(key) <= 2 ** 31 - 1
    ? await em.findOne(Store, { id: Number(key), isActive: true })
    : await em.findOne(Store, { slug: key.toLowerCase(), isActive: true });
  if (!store) throw notFound('Store', key);
  return store;
}

export async function listMainCategories(em: EntityManager): Promise<MainCategory[]> {
  return em.find(MainCategory, {}, { orderBy: { sortOrder: 'asc', id: 'asc' } });
}

export async function listStoreCategories(em: EntityManager): Promise<StoreCategory[]> {
  return em.find(StoreCategory, {}, { orderBy: { sortOrder: 'asc', id: 'asc' } });
}

/** A store a caller may read from: active, or their own. */
export async function visibleStore(ctx: Context, storeId: number): Promise<Store> {
  const store = await ctx.em.findOne(Store, { id: storeId });
  if (!store || (!store.isActive && !viewerOwns(ctx, store))) throw notFound('Store', storeId);
  return store;
}
