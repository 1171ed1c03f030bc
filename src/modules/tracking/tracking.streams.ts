/**
 * Live order streams for subscriptions. An order's followers share one feed on this instance
 * (order-feed.ts): the stored events the client has not seen (seq > afterSeq), then live ones,
 * no duplicates, gaps filled from the database, so a client that resumes with its last seq
 * loses nothing. Store and driver streams merge many orders and re-read recent events; a board
 * resumes with the last seq it saw of each order it holds (`afterSeqs`).
 *
 * The bus may lose messages (Redis down, a dropped connection): every stream also reads the
 * database on a timer, every 2 s while the bus is down (and for 10 s after) and every 30 s
 * otherwise, so an outage delays events but never drops them.
 */
import { Repeater } from '@repeaterjs/repeater';
import { Context } from '../../context';
import { invalidField } from '../../common/errors';
import { missedStoreEvents, OrderEventMessage, recentEvents, storedEventsAfter, subscribeEvents, topics } from '../orders/order-events';
import { followableOrder } from '../orders/order.service';
import { CATCH_UP_AFTER_MS, catchUpIn, followOrder, nextCatchUp } from './order-feed';

export async function orderStream(ctx: Context, orderId: number, afterSeq: number): Promise<AsyncIterable<OrderEventMessage>> {
  return followOrder(ctx, await followableOrder(ctx, orderId), afterSeq); // checked once, at subscribe time
}

/** A board's resume also replays the stores' other orders' events of this long (orders it did not hold: new ones). */
export const BOARD_RESUME_WINDOW_SECONDS = 600;
/** How far back a stream without a resume point reads on subscribing and on each catch-up. */
const RECENT_SECONDS = 60;
/** At most this many orders in a board's resume point. */
export const MAX_RESUME_ORDERS = 1000;

/**
 * Events of every order of the given stores (an owner's dashboard), merged. Without a resume
 * point, only what happens after subscribing; with one (`afterSeqs`: the last seq the board
 * received of each order it holds), first what it missed, then live events, each once.
 */
export function storesStream(
  ctx: Context,
  storeIds: number[],
  afterSeqs?: { orderId: number; seq: number }[] | null,
): Promise<AsyncIterable<OrderEventMessage>> {
  if (afterSeqs && afterSeqs.length > MAX_RESUME_ORDERS) {
    throw invalidField('afterSeqs', `afterSeqs may hold at most ${MAX_RESUME_ORDERS} orders`);
  }
  if (afterSeqs?.some(({ orderId, seq }) => orderId < 1 || seq < 0)) {
    throw invalidField('afterSeqs', 'each orderId must be 1 or more and each seq 0 or more');
  }
  const live = Repeater.merge(storeIds.map((id) => subscribeEvents(ctx.services.pubSub, topics.store(id))));
  return caughtUp(ctx, live, { column: 'store_id', ids: storeIds }, afterSeqs ?? undefined);
}

/** Events of the orders assigned to a driver (assignments, then their changes). */
export function driverStream(ctx: Context, driverId: number): Promise<AsyncIterable<OrderEventMessage>> {
  return caughtUp(ctx, subscribeEvents(ctx.services.pubSub, topics.driver(driverId)), { column: 'driver_id', ids: [driverId] });
}

/**
 * A live stream of many orders' events, completed from the database: recent events of the
 * matching orders are re-read on the catch-up timer (first 1 s after subscribing: what was
 * published while the bus listener was being set up), a gap in a known order's seqs is read
 * before the event after it, and each order's events pass once, in seq order (an order's seq
 * follows its commits: it is allocated under the order row's lock).
 */
async function caughtUp(
  ctx: Context,
  live: AsyncIterable<OrderEventMessage>,
  orders: { column: 'store_id' | 'driver_id'; ids: number[] },
  resume?: { orderId: number; seq: number }[],
): Promise<AsyncIterable<OrderEventMessage>> {
  const sent = new Map<number, number>(); // order id -> last seq sent
  const recent = () => recentEvents(ctx, orders.column, orders.ids, RECENT_SECONDS);
  const resuming = resume !== undefined && orders.column === 'store_id';
  // An order with no event in the window read below (not in `sent` after it) has had every event
  // since the window's start after this subscription: those are news, its older ones are not.
  const newsSince = Date.now() - (resuming ? BOARD_RESUME_WINDOW_SECONDS : RECENT_SECONDS) * 1000;
  let missed: OrderEventMessage[] = [];
  if (resume && resuming) {
    for (const { orderId, seq } of resume) sent.set(orderId, Math.max(seq, sent.get(orderId) ?? 0));
    const seen = [...sent].map(([orderId, seq]) => ({ orderId, seq }));
    missed = await missedStoreEvents(ctx.em, orders.ids, seen, BOARD_RESUME_WINDOW_SECONDS);
  } else {
    // What happened before subscribing is not news: only later events are sent.
    for (const event of await recent()) sent.set(event.orderId, Math.max(event.seq, sent.get(event.orderId) ?? 0));
  }
  // Listening starts now (a listener counted is a subscription set up); what was committed
  // between the read and now comes with the first catch-up read.
  const iterator = live[Symbol.asyncIterator]();
  let pending = iterator.next();
  const isNew = (event: OrderEventMessage) => {
    if (event.seq <= (sent.get(event.orderId) ?? 0)) return false;
    sent.set(event.orderId, event.seq);
    return true;
  };
  // A consumer's return() waits for the generator's next yield; a quiet store's stream may wait
  // on the bus for hours, so its return() also resolves `stopped`, which ends the wait now.
  let stop!: () => void;
  const stopped = new Promise<'stop'>((resolve) => (stop = () => resolve('stop')));
  async function* stream(): AsyncGenerator<OrderEventMessage> {
    const bus = {};
    let catchUp: { promise: Promise<'catch-up'>; cancel: () => void } = catchUpIn(CATCH_UP_AFTER_MS);
    try {
      const replay = missed;
      missed = [];
      for (const event of replay) if (isNew(event)) yield event;
      for (;;) {
        const next = await Promise.race([pending, catchUp.promise, stopped]);
        if (next === 'stop') return;
        if (next === 'catch-up') {
          for (const event of await recent()) if (isNew(event)) yield event;
          catchUp = nextCatchUp(ctx.services, bus);
          continue;
        }
        if (next.done) return;
        pending = iterator.next();
        const event = next.value;
        const last = sent.get(event.orderId) ?? (orders.column === 'store_id' ? 0 : undefined);
        if (last !== undefined && event.seq > last + 1) {
          // A gap (a message lost, two instances' messages crossing; on a board, also a new
          // order's first events, each of the store's; a driver hears an order from its assignment on): what lies between first.
          const known = sent.has(event.orderId);
          const between = await storedEventsAfter(ctx.em, { id: event.orderId, storeId: event.storeId }, last);
          for (const stored of between) {
            if (stored.seq < event.seq && (known || Date.parse(stored.at) > newsSince) && isNew(stored)) yield stored;
          }
        }
        if (isNew(event)) yield event;
      }
    } finally {
      catchUp.cancel();
      await iterator.return?.();
    }
  }
  const generator = stream();
  const end = generator.return.bind(generator);
  generator.return = (value) => (stop(), end(value));
  return generator;
}
