/**
 * Live order streams for subscriptions. An order stream first replays the stored events the
 * client has not seen (seq > afterSeq), then streams live ones, skipping duplicates and filling
 * gaps from the database, so a client that resumes with its last seq loses nothing.
 */
import { Repeater } from '@repeaterjs/repeater';
import { Context } from '../../context';
import { eventsAfter, OrderEventMessage, subscribeEvents, topics } from '../orders/order-events';
import { FINAL_STATUSES, OrderStatus } from '../orders/order-status';
import { getOrderForParticipant } from '../orders/order.service';

/** One catch-up read this long after subscribing covers events published while it was set up. */
const CATCH_UP_AFTER_MS = 1000;

const isFinal = (event: OrderEventMessage) => event.type === 'status' && FINAL_STATUSES.includes(event.status as OrderStatus);

export async function orderStream(ctx: Context, orderId: number, afterSeq: number): Promise<AsyncIterable<OrderEventMessage>> {
  const order = await getOrderForParticipant(ctx, orderId); // checked once, at subscribe time
  const live = subscribeEvents(ctx.services.pubSub, topics.order(orderId))[Symbol.asyncIterator]();
  let pending = live.next(); // listening starts now, before the replay is read

  async function* stream(): AsyncGenerator<OrderEventMessage> {
    let last = afterSeq;
    const fromDatabase = async function* (before = Infinity) {
      for (const event of await eventsAfter(ctx, order, last)) {
        if (event.seq >= before) return;
        yield event;
        last = event.seq;
      }
    };
    try {
      for await (const event of fromDatabase()) {
        yield event;
        if (isFinal(event)) return;
      }
      // Ended before we subscribed and its final event is at or before afterSeq: nothing more
      // can come (no event follows a final status), so the stream ends instead of idling.
      if (FINAL_STATUSES.includes(order.status)) return;
      let catchUp: Promise<'catch-up'> | null = new Promise((resolve) => setTimeout(() => resolve('catch-up'), CATCH_UP_AFTER_MS).unref());
      for (;;) {
        const next = await (catchUp ? Promise.race([pending, catchUp]) : pending);
        if (next === 'catch-up') {
          catchUp = null;
          for await (const event of fromDatabase()) {
            yield event;
            if (isFinal(event)) return;
          }
          continue;
        }
        if (next.done) return;
        pending = live.next();
        const event = next.value;
        if (event.seq <= last) continue; // already sent (replayed or caught up)
        if (event.seq > last + 1) yield* fromDatabase(event.seq); // a gap: read what was missed
        yield event;
        last = event.seq;
        if (isFinal(event)) return;
      }
    } finally {
      await live.return?.();
    }
  }
  return stream();
}

/** Events of every order of the given stores (an owner's dashboard), merged. */
export function storesStream(ctx: Context, storeIds: number[]): AsyncIterable<OrderEventMessage> {
  return Repeater.merge(storeIds.map((id) => subscribeEvents(ctx.services.pubSub, topics.store(id))));
}

/** Events of the orders assigned to a driver (assignments, then their changes). */
export function driverStream(ctx: Context, driverId: number): AsyncIterable<OrderEventMessage> {
  return subscribeEvents(ctx.services.pubSub, topics.driver(driverId));
}
