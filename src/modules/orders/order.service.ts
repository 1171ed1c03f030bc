/** Reading orders: customers their own (another's is 404), owners their stores', drivers theirs. */
import { executePrepared } from '../../common/entity-manager';
import { notFound } from '../../common/errors';
import { PageMeta, pageMeta, pageWindow } from '../../common/pagination';
import { Context, viewerOf } from '../../context';
import { ownedStoreIds, requireOwnedStore } from '../stores/ownership';
import { Order } from './order.entity';
import type { StoreOrderListArgs } from './order.inputs';

/** Most orders a list answers, newest first. */
export const ORDER_LIST_LIMIT = 100;

export async function listCustomerOrders(ctx: Context): Promise<Order[]> {
  const viewer = viewerOf(ctx);
  return ctx.em.find(Order, { user: viewer.userId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: ORDER_LIST_LIMIT });
}

export async function getCustomerOrder(ctx: Context, id: number): Promise<Order> {
  const viewer = viewerOf(ctx);
  const order = await ctx.em.findOne(Order, { id, user: viewer.userId });
  if (!order) throw notFound('Order', id);
  return order;
}

export async function listStoreOrders(ctx: Context, storeId?: number | null, status?: string | null): Promise<Order[]> {
  const stores = storeId != null ? [(await requireOwnedStore(ctx, storeId)).id] : await ownedStoreIds(ctx);
  return ctx.em.find(
    Order,
    { store: { $in: stores }, ...(status ? { status: status as Order['status'] } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: ORDER_LIST_LIMIT },
  );
}

/** A page of the orders of the caller's stores (or one of them), of one status or all, newest first. */
export async function pageStoreOrders(ctx: Context, args: StoreOrderListArgs): Promise<{ orders: Order[]; meta: PageMeta }> {
  const stores = args.storeId != null ? [(await requireOwnedStore(ctx, args.storeId)).id] : await ownedStoreIds(ctx);
  const [orders, total] = await ctx.em.findAndCount(
    Order,
    { store: { $in: stores }, ...(args.status ? { status: args.status as Order['status'] } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageWindow(args) },
  );
  return { orders, meta: pageMeta(total, args.page, args.perPage) };
}

/**
 * The order as a live stream of it needs it, when the caller is its customer, its store's owner
 * or its driver (anyone else NOT_FOUND): one prepared statement, no entities (each follower's
 * socket subscribes once; at 10,000 the ORM's load of the order, its store and its driver was
 * the largest part of a subscription's CPU: docs/perf/2026-11-27-fanout.md).
 */
export async function followableOrder(
  ctx: Context,
  id: number,
): Promise<{ id: number; storeId: number; status: string; driverId: number | null }> {
  const { userId } = viewerOf(ctx);
  const [row] = await executePrepared<{ id: number; store_id: number; status: string; driver_id: number | null }>(
    ctx.em,
    `select o.id, o.store_id, o.status, o.driver_id from orders o join stores s on s.id = o.store_id
     left join drivers d on d.id = o.driver_id where o.id = ? and (o.user_id = ? or s.owner_id = ? or d.user_id = ?)`,
    [id, userId, userId, userId],
  );
  if (!row) throw notFound('Order', id);
  return { id: row.id, storeId: row.store_id, status: row.status, driverId: row.driver_id };
}
