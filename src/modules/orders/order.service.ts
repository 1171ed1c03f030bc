/** Reading orders: customers their own (another's is 404), owners their stores', drivers theirs. */
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

/** The order if the caller is its customer, its store's owner or its driver; else 404. */
export async function getOrderForParticipant(ctx: Context, id: number): Promise<Order> {
  const viewer = viewerOf(ctx);
  const order = await ctx.em.findOne(Order, { id }, { populate: ['store', 'driver'] });
  const driver = order?.driver?.getEntity();
  const allowed =
    order && (order.user.id === viewer.userId || order.store.getEntity().owner?.id === viewer.userId || driver?.user.id === viewer.userId);
  if (!allowed) throw notFound('Order', id);
  return order;
}
