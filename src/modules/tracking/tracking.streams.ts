/**
 * Live order streams for subscriptions. An order stream first replays the stored events the
 * client has not seen (seq > afterSeq), then streams live ones, skipping duplicates and filling
 * gaps from the database, so a client that resumes with its last seq loses nothing.
 *
 * The bus may lose messages (Redis down, a dropped connection): every stream also reads the
 * database on a timer, every 2 s while the bus is down (and for 10 s after) and every 30 s
 * otherwise, so an outage delays events but never drops them.
 */
import { Repeater } from '@repeaterjs/repeater';
import { Context } from '../../context';
import { storedPosition } from '../drivers/driver.service';
import { eventsAfter, OrderEventMessage, recentEvents, subscribeEvents, topics } from '../orders/order-events';
import { ACTIVE_DRIVER_STATUSES, FINAL_STATUSES, OrderStatus } from '../orders/order-status';
import { getOrderForParticipant } from '../orders/order.service';

/** The first catch-up read, this long after subscribing, covers events published while it was set up. */
const CATCH_UP_AFTER_MS = 1000;
/** Later catch-up reads: often while the bus is down, rarely (a lost message) while it is up. */
const CATCH_UP_BUS_DOWN_MS = 2000;
const CATCH_UP_BUS_UP_MS = 30_000;

type Tick = 'catch-up';
/** Resolves after `ms`. */
const catchUpIn = (ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<Tick>((resolve) => (timer = setTimeout(() => resolve('catch-up'), ms).unref()));
  return { promise, cancel: () => clearTimeout(timer) };
};
/** After the bus comes back, reads stay as frequent as during the outage this long. */
const CATCH_UP_AFTER_OUTAGE_MS = 10_000;

/**
 * Resolves when the next read is due. The bus's health is looked at every 2 s, so an outage is
 * noticed fast; reads stay that frequent for a while after it ends (`bus.downAt`, kept by the
 * stream), because "healthy" comes before every subscription is re-established and an event
 * published in between reaches nobody through the bus.
 */
const nextCatchUp = (ctx: Context, bus: { downAt?: number }) => {
  const since = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<Tick>((resolve) => {
    const check = () => {
      const now = Date.now();
      if (!ctx.services.busHealthy()) bus.downAt = now;
      const recovering = bus.downAt !== undefined && now - bus.downAt < CATCH_UP_AFTER_OUTAGE_MS;
      if (recovering || now - since >= CATCH_UP_BUS_UP_MS) resolve('catch-up');
      else timer = setTimeout(check, CATCH_UP_BUS_DOWN_MS).unref();
    };
    timer = setTimeout(check, CATCH_UP_BUS_DOWN_MS).unref();
  });
  return { promise, cancel: () => clearTimeout(timer) };
};

const isFinal = (event: OrderEventMessage) => event.type === 'status' && FINAL_STATUSES.includes(event.status as OrderStatus);

export async function orderStream(ctx: Context, orderId: number, afterSeq: number): Promise<AsyncIterable<OrderEventMessage>> {
  const order = await getOrderForParticipant(ctx, orderId); // checked once, at subscribe time
  const live = subscribeEvents(ctx.services.pubSub, topics.order(orderId))[Symbol.asyncIterator]();
  let pending = live.next(); // listening starts now, before the replay is read

  async function* stream(): AsyncGenerator<OrderEventMessage> {
    let last = afterSeq;
    let latest: OrderEventMessage | undefined;
    let catchUp: ReturnType<typeof catchUpIn> | undefined;
    const bus: { downAt?: number } = {};
    /** The driver's position, unless it is not newer than the last one sent. */
    let positionAt = 0;
    const newPosition = async () => {
      const now = latest ?? { status: order.status, driverId: order.driver?.id ?? null };
      const position = await currentPosition(ctx, order.id, order.store.id, now, last);
      if (!position || Date.parse(position.at) <= positionAt) return null;
      positionAt = Date.parse(position.at);
      return position;
    };
    const fromDatabase = async function* (before = Infinity) {
      for (const event of await eventsAfter(ctx, order, last)) {
        if (event.seq >= before) return;
        yield event;
        last = event.seq;
        latest = event;
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
      // Positions are not replayed: the driver's latest one comes once, after the replay.
      const position = await newPosition();
      if (position) yield position;
      catchUp = catchUpIn(CATCH_UP_AFTER_MS);
      for (;;) {
        const next = await Promise.race([pending, catchUp.promise]);
        if (next === 'catch-up') {
          for await (const event of fromDatabase()) {
            yield event;
            if (isFinal(event)) return;
          }
          // While the bus is down positions reach no one through it: the latest comes from the driver's row.
          if (!ctx.services.busHealthy() || (bus.downAt !== undefined && Date.now() - bus.downAt < CATCH_UP_AFTER_OUTAGE_MS)) {
            const moved = await newPosition();
            if (moved) yield moved;
          }
          catchUp = nextCatchUp(ctx, bus);
          continue;
        }
        if (next.done) return;
        pending = live.next();
        const event = next.value;
        if (event.live) {
          // A position comes after the stored events up to its seq; one read before a later event
          // committed still is the driver's latest: it is sent after that event, with its seq and status.
          if (event.seq > last) yield* fromDatabase(event.seq + 1);
          if (Date.parse(event.at) > positionAt) {
            positionAt = Date.parse(event.at);
            yield event.seq === last ? event : { ...event, seq: last, status: latest?.status ?? event.status };
          }
          continue;
        }
        if (event.seq <= last) continue; // already sent (replayed or caught up)
        if (event.seq > last + 1) yield* fromDatabase(event.seq); // a gap: read what was missed
        yield event;
        last = event.seq;
        latest = event;
        if (isFinal(event)) return;
      }
    } finally {
      catchUp?.cancel();
      await live.return?.();
    }
  }
  return stream();
}

/** The position of the driver carrying an order, as a live position after seq `last`, if there is one. */
async function currentPosition(
  ctx: Context,
  orderId: number,
  storeId: number,
  now: { status: string; driverId: number | null },
  last: number,
): Promise<OrderEventMessage | null> {
  if (now.driverId === null || !ACTIVE_DRIVER_STATUSES.includes(now.status as OrderStatus)) return null;
  const position = ctx.services.positions.latest(now.driverId) ?? (await storedPosition(ctx.em, now.driverId));
  if (!position) return null;
  const { latitude, longitude, at } = position;
  return {
    orderId,
    seq: last,
    type: 'driver_location',
    status: now.status,
    at: at.toISOString(),
    data: { latitude, longitude },
    storeId,
    driverId: now.driverId,
    live: true,
  };
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
    let catchUp = nextCatchUp(ctx, bus);
    try {
      for (;;) {
        const next = await Promise.race([pending, catchUp.promise]);
        if (next === 'catch-up') {
          for (const event of await recent()) if (isNew(event)) yield event;
          catchUp = nextCatchUp(ctx, bus);
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
