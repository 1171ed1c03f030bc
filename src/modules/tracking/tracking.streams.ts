/**
 * Live order streams for subscriptions. An order's followers share one feed on this instance
 * (order-feed.ts): the stored events the client has not seen (seq > afterSeq), then live ones,
 * no duplicates, gaps filled from the database, so a client that resumes with its last seq
 * loses nothing. Store and driver streams merge many orders and re-read recent events.
 *
 * The bus may lose messages (Redis down, a dropped connection): every stream also reads the
 * database on a timer, every 2 s while the bus is down (and for 10 s after) and every 30 s
 * otherwise, so an outage delays events but never drops them.
 */
import { Repeater } from '@repeaterjs/repeater';
import { Context } from '../../context';
import { OrderEventMessage, recentEvents, subscribeEvents, topics } from '../orders/order-events';
import { getOrderForParticipant } from '../orders/order.service';
import { followOrder, nextCatchUp } from './order-feed';

export async function orderStream(ctx: Context, orderId: number, afterSeq: number): Promise<AsyncIterable<OrderEventMessage>> {
  const order = await getOrderForParticipant(ctx, orderId); // checked once, at subscribe time
  return followOrder(ctx, { id: order.id, storeId: order.store.id, status: order.status, driverId: order.driver?.id ?? null }, afterSeq);
}

/** Events of every order of the given stores (an owner's dashboard), merged. */
export function storesStream(ctx: Context, storeIds: number[]): Promise<AsyncIterable<OrderEventMessage>> {
  const live = Repeater.merge(storeIds.map((id) => subscribeEvents(ctx.services.pubSub, topics.store(id))));
  return caughtUp(ctx, live, { column: 'store_id', ids: storeIds });
}

/** Events of the orders assigned to a driver (assignments, then their changes). */
export function driverStream(ctx: Context, driverId: number): Promise<AsyncIterable<OrderEventMessage>> {
  return caughtUp(ctx, subscribeEvents(ctx.services.pubSub, topics.driver(driverId)), { column: 'driver_id', ids: [driverId] });
}

/**
 * A live stream of many orders' events, completed from the database: recent events of the
 * matching orders are re-read on the catch-up timer and each order's events pass once, in seq
 * order (an order's seq follows its commits: it is allocated under the order row's lock).
 */
async function caughtUp(
  ctx: Context,
  live: AsyncIterable<OrderEventMessage>,
  orders: { column: 'store_id' | 'driver_id'; ids: number[] },
): Promise<AsyncIterable<OrderEventMessage>> {
  const sent = new Map<number, number>(); // order id -> last seq sent
  const recent = () => recentEvents(ctx, orders.column, orders.ids);
  // What happened before subscribing is not news: only later events are sent.
  for (const event of await recent()) sent.set(event.orderId, Math.max(event.seq, sent.get(event.orderId) ?? 0));
  const iterator = live[Symbol.asyncIterator]();
  let pending = iterator.next();
  const isNew = (event: OrderEventMessage) => {
    if (event.seq <= (sent.get(event.orderId) ?? 0)) return false;
    sent.set(event.orderId, event.seq);
    return true;
  };
  async function* stream(): AsyncGenerator<OrderEventMessage> {
    const bus = {};
    let catchUp = nextCatchUp(ctx.services, bus);
    try {
      for (;;) {
        const next = await Promise.race([pending, catchUp.promise]);
        if (next === 'catch-up') {
          for (const event of await recent()) if (isNew(event)) yield event;
          catchUp = nextCatchUp(ctx.services, bus);
          continue;
        }
        if (next.done) return;
        pending = iterator.next();
        if (isNew(next.value)) yield next.value;
      }
    } finally {
      catchUp.cancel();
      await iterator.return?.();
    }
  }
  return stream();
}
