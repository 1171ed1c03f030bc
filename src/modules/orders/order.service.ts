/** Reading orders: customers their own (another's is 404), owners their stores', drivers theirs. */
import { notFound } from '../../common/errors';
import { Context } from '../../context';
import { requireViewer } from '../auth/token.service';
import { ownedStoreIds, requireOwnedStore } from '../stores/ownership';
import { OrderEventMessage } from './order-events';
import type { OrderEventType } from './order-event.entity';
import { Order } from './order.entity';

/** Most orders a list answers, newest first. */
export const ORDER_LIST_LIMIT = 100;

export async function listCustomerOrders(ctx: Context): Promise<Order[]> {
  const viewer = requireViewer(ctx.viewer, ctx.authError);
  return ctx.em.find(Order, { user: viewer.userId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: ORDER_LIST_LIMIT });
}

export async function getCustomerOrder(ctx: Context, id: number): Promise<Order> {
  const viewer = requireViewer(ctx.viewer, ctx.authError);
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

/** The order if the caller is its customer, its store's owner or its driver; else 404. */
export async function getOrderForParticipant(ctx: Context, id: number): Promise<Order> {
  const viewer = requireViewer(ctx.viewer, ctx.authError);
  const order = await ctx.em.findOne(Order, { id }, { populate: ['store', 'driver'] });
  const driver = order?.driver?.getEntity();
  const allowed =
    order &&
    (order.user.id === viewer.userId || order.store.getEntity().owner?.id === viewer.userId || driver?.user.id === viewer.userId);
  if (!allowed) throw notFound('Order', id);
  return order;
}

/** Stored events after `afterSeq`, as subscribers receive them (the replay of a resume). */
export async function eventsAfter(ctx: Context, order: Order, afterSeq: number): Promise<OrderEventMessage[]> {
  // Raw rows: a long-lived subscription must not fill its EntityManager with events.
  const rows = await ctx.em.execute<{ seq: number; type: OrderEventType; status: string; created_at: Date; data: Record<string, unknown> | null; driver_id: number | null }[]>(
    `select e.seq, e.type, e.status, e.created_at, e.data, o.driver_id
     from order_events e join orders o on o.id = e.order_id where e.order_id = ? and e.seq > ? order by e.seq`,
    [order.id, afterSeq],
  );
  return rows.map((e) => ({
    orderId: order.id,
    seq: e.seq,
    type: e.type,
    status: e.status,
    at: new Date(e.created_at).toISOString(),
    data: typeof e.data === 'string' ? JSON.parse(e.data) : e.data,
    storeId: order.store.id,
    driverId: e.driver_id,
  }));
}

/**
 * Events of the last `lookbackSeconds` of the orders of some stores (or of one driver), in
 * (order, seq) order: what store and driver streams re-read to make up for a lost bus message.
 */
export async function recentEvents(
  ctx: Context,
  column: 'store_id' | 'driver_id',
  ids: number[],
  lookbackSeconds = 60,
): Promise<OrderEventMessage[]> {
  if (ids.length === 0) return [];
  const rows = await ctx.em.execute<
    { order_id: number; seq: number; type: OrderEventType; status: string; created_at: Date; data: Record<string, unknown> | null; store_id: number; driver_id: number | null }[]
  >(
    `select e.order_id, e.seq, e.type, e.status, e.created_at, e.data, o.store_id, o.driver_id
     from order_events e join orders o on o.id = e.order_id
     where o.${column === 'store_id' ? 'store_id' : 'driver_id'} in (?) and e.created_at > now() - make_interval(secs => ?)
     order by e.order_id, e.seq`,
    [ids, lookbackSeconds],
  );
  return rows.map((e) => ({
    orderId: Number(e.order_id),
    seq: e.seq,
    type: e.type,
    status: e.status,
    at: new Date(e.created_at).toISOString(),
    data: typeof e.data === 'string' ? JSON.parse(e.data) : e.data,
    storeId: e.store_id,
    driverId: e.driver_id,
  }));
}
