/**
 * Ownership, checked in services so that REST, GraphQL and subscriptions cannot differ: a
 * store is managed by its owner (stores.owner_id); everything in it follows the store.
 */
import { forbidden, notFound } from '../../common/errors';
import { Context, viewerOf } from '../../context';
import { Store } from './store.entity';

/** The store, if the signed-in caller owns it: 404 unknown, 403 not theirs. */
export async function requireOwnedStore(ctx: Context, storeId: number): Promise<Store> {
  const viewer = viewerOf(ctx);
  const store = await ctx.em.findOne(Store, { id: storeId });
  if (!store) throw notFound('Store', storeId);
  if (store.owner?.id !== viewer.userId) throw forbidden('You do not own this store.');
  return store;
}

/** Throws 403 unless the signed-in caller owns the (already loaded) store. */
export function assertOwns(ctx: Context, store: Store): void {
  const viewer = viewerOf(ctx);
  if (store.owner?.id !== viewer.userId) throw forbidden('You do not own this store.');
}

/** Whether the caller (signed in or not) owns the store: owners see what customers don't. */
export function viewerOwns(ctx: Context, store: Store): boolean {
  return ctx.viewer !== null && store.owner?.id === ctx.viewer.userId;
}

/** Ids of the stores the signed-in caller owns. */
export async function ownedStoreIds(ctx: Context): Promise<number[]> {
  const viewer = viewerOf(ctx);
  const stores = await ctx.em.find(Store, { owner: viewer.userId }, { fields: ['id'], orderBy: { id: 'asc' } });
  return stores.map((s) => s.id);
}
