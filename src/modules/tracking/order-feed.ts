/**
 * One shared upstream per followed order on this instance (issue 26, the fan-out): however many
 * sockets follow an order, the instance holds one bus listener for it, one catch-up timer and
 * one copy of its stored events, and reads the database for it once per catch-up, not once per
 * follower. Every follower receives the same event objects in the same order, so the socket
 * layer executes a selection once per event (graphql/shared-results.ts).
 *
 * A follower joins with its `afterSeq`: it gets the stored events after it from the feed's copy
 * (an order has a few dozen events at most), the driver's latest position once, then what the
 * feed emits. The feed emits each stored event once, in seq order: live ones from the bus,
 * skipping duplicates and filling gaps from the database, and the database is re-read on a timer
 * because the bus may lose messages: every 2 s while it is down (and for 10 s after), every 30 s
 * otherwise. The order's final status ends the feed and every follower's stream.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { PushedStream, StreamSink } from '../../common/pushed-stream';
import { Context, Services } from '../../context';
import { storedPosition } from '../drivers/driver.service';
import { OrderEventMessage, storedEventsAfter, subscribeEvents, topics } from '../orders/order-events';
import { ACTIVE_DRIVER_STATUSES, FINAL_STATUSES, OrderStatus } from '../orders/order-status';

/** The first catch-up read, this long after the feed starts, covers events published while it was set up. */
export const CATCH_UP_AFTER_MS = 1000;
/** Later catch-up reads: often while the bus is down, rarely (a lost message) while it is up. */
const CATCH_UP_BUS_DOWN_MS = 2000;
const CATCH_UP_BUS_UP_MS = 30_000;
/** After the bus comes back, reads stay as frequent as during the outage this long. */
export const CATCH_UP_AFTER_OUTAGE_MS = 10_000;

type Tick = 'catch-up';
export const catchUpIn = (ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<Tick>((resolve) => (timer = setTimeout(() => resolve('catch-up'), ms).unref()));
  return { promise, cancel: () => clearTimeout(timer) };
};

/**
 * Resolves when the next read is due. The bus's health is looked at every 2 s, so an outage is
 * noticed fast; reads stay that frequent for a while after it ends (`bus.downAt`), because
 * "healthy" comes before every subscription is re-established and an event published in
 * between reaches nobody through the bus.
 */
export const nextCatchUp = (services: Services, bus: { downAt?: number }) => {
  const since = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<Tick>((resolve) => {
    const check = () => {
      const now = Date.now();
      if (!services.busHealthy()) bus.downAt = now;
      const recovering = bus.downAt !== undefined && now - bus.downAt < CATCH_UP_AFTER_OUTAGE_MS;
      if (recovering || now - since >= CATCH_UP_BUS_UP_MS) resolve('catch-up');
      else timer = setTimeout(check, CATCH_UP_BUS_DOWN_MS).unref();
    };
    timer = setTimeout(check, CATCH_UP_BUS_DOWN_MS).unref();
  });
  return { promise, cancel: () => clearTimeout(timer) };
};

export const isFinal = (event: OrderEventMessage) => event.type === 'status' && FINAL_STATUSES.includes(event.status as OrderStatus);

/**
 * A follower's stream: a queue the feed pushes into and the socket layer pulls from, or, once a
 * consumer asked for it (`pushTo`, graphql/shared-results.ts), a sink each event is handed to as
 * the feed emits it: a thousand followers cost a loop, not a thousand promises.
 */
class Follower implements PushedStream<OrderEventMessage> {
  private queue: OrderEventMessage[] = [];
  private waiting?: { resolve: (r: IteratorResult<OrderEventMessage>) => void; reject: (e: unknown) => void };
  private sink?: StreamSink<OrderEventMessage>;
  private finished = false;
  private failure?: Error;
  /** The time of the last position sent: an older one is not sent after it. */
  positionAt = 0;

  constructor(private readonly leave: (follower: Follower) => void) {}

  push(event: OrderEventMessage, positionAt?: number): void {
    if (this.finished) return;
    if (positionAt !== undefined) {
      if (positionAt <= this.positionAt) return;
      this.positionAt = positionAt;
    }
    if (this.sink) this.sink.next(event);
    else if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
    } else this.queue.push(event);
  }

  /** No more events: after the queued ones, the stream completes (or fails with `error`). */
  end(error?: Error): void {
    if (this.finished) return;
    this.finished = true;
    if (this.sink) return this.sink.end(error);
    this.failure = error;
    if (this.waiting && this.queue.length === 0) {
      const { resolve, reject } = this.waiting;
      this.waiting = undefined;
      if (error === undefined) resolve({ value: undefined, done: true });
      else reject(error);
    }
  }

  pushTo(sink: StreamSink<OrderEventMessage>): void {
    if (this.sink || this.waiting) throw new Error('A follower has one consumer.');
    this.sink = sink;
    const queued = this.queue;
    this.queue = [];
    for (const event of queued) sink.next(event);
    if (this.finished) {
      const error = this.failure;
      this.failure = undefined;
      sink.end(error);
    }
  }

  next(): Promise<IteratorResult<OrderEventMessage>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.finished) {
      if (this.failure === undefined) return Promise.resolve({ value: undefined, done: true });
      const error = this.failure;
      this.failure = undefined;
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  return(): Promise<IteratorResult<OrderEventMessage>> {
    this.queue = [];
    this.sink = undefined;
    this.finished = true;
    this.failure = undefined;
    this.waiting?.resolve({ value: undefined, done: true });
    this.waiting = undefined;
    this.leave(this);
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/** The order as a feed knows it: its store is fixed; its status and driver come with its events. */
interface FeedOrder {
  id: number;
  storeId: number;
  status: string;
  driverId: number | null;
}

class OrderFeed {
  readonly followers = new Set<Follower>();
  /** Followers between `join` and being added (their position is being read): the feed stays. */
  joining = 0;
  /** The order's stored events so far, in seq order (a joining follower's replay). */
  readonly history: OrderEventMessage[] = [];
  ended = false;
  /** No follower left: the feed is leaving the map and stops listening; a new follower starts another. */
  stopping = false;
  readonly ready: Promise<void>;
  private last = 0;
  private latest?: OrderEventMessage;
  private positionAt = 0;
  private stop?: () => void;
  private readonly bus: { downAt?: number } = {};

  constructor(
    readonly order: FeedOrder,
    private readonly em: EntityManager,
    private readonly services: Services,
    private readonly closed: (feed: OrderFeed) => void,
  ) {
    let started!: () => void;
    let failed!: (error: unknown) => void;
    this.ready = new Promise<void>((resolve, reject) => ((started = resolve), (failed = reject)));
    this.ready.catch(() => undefined); // a joiner that awaits it gets the error
    void this.run(started, failed);
  }

  /** The order's status and driver as of the last event emitted. */
  now(): { status: string; driverId: number | null; seq: number } {
    return { status: this.latest?.status ?? this.order.status, driverId: this.latest?.driverId ?? this.order.driverId, seq: this.last };
  }

  /** A follower left: with none left (and none joining), the feed stops listening. */
  leave(follower: Follower): void {
    this.followers.delete(follower);
    this.closeIfIdle();
  }

  closeIfIdle(): void {
    if (this.followers.size > 0 || this.joining > 0 || this.stopping) return;
    this.stopping = true;
    this.closed(this);
    this.stop?.();
  }

  private emit(event: OrderEventMessage): void {
    this.history.push(event);
    this.last = event.seq;
    this.latest = event;
    for (const follower of this.followers) follower.push(event);
    if (isFinal(event)) this.ended = true;
  }

  private emitPosition(position: OrderEventMessage): void {
    const at = Date.parse(position.at);
    if (at <= this.positionAt) return;
    this.positionAt = at;
    for (const follower of this.followers) follower.push(position, at);
  }

  /** Stored events after the last one emitted (those before `before` only). */
  private async fromDatabase(before = Infinity): Promise<void> {
    for (const event of await storedEventsAfter(this.em.fork(), this.order, this.last)) {
      if (event.seq >= before || this.ended) return;
      this.emit(event);
    }
  }

  private async run(started: () => void, failed: (error: unknown) => void): Promise<void> {
    const live = subscribeEvents(this.services.pubSub, topics.order(this.order.id))[Symbol.asyncIterator]();
    let pending = live.next(); // listening starts now, before the stored events are read
    let stopped!: () => void;
    const stopping = new Promise<'stop'>((resolve) => (stopped = () => resolve('stop')));
    this.stop = stopped;
    let catchUp: ReturnType<typeof catchUpIn> | undefined;
    try {
      try {
        await this.fromDatabase();
      } finally {
        started();
      }
      if (this.ended) return;
      catchUp = catchUpIn(CATCH_UP_AFTER_MS);
      while (!this.ended) {
        const next = await Promise.race([pending, catchUp.promise, stopping]);
        if (next === 'stop') return;
        if (next === 'catch-up') {
          await this.fromDatabase();
          if (this.ended) return;
          // While the bus is down positions reach no one through it: the latest comes from the driver's row.
          if (!this.services.busHealthy() || (this.bus.downAt !== undefined && Date.now() - this.bus.downAt < CATCH_UP_AFTER_OUTAGE_MS)) {
            const moved = await currentPosition(this.services, this.em.fork(), this.order, this.now());
            if (moved) this.emitPosition(moved);
          }
          catchUp = nextCatchUp(this.services, this.bus);
          continue;
        }
        if (next.done) return;
        pending = live.next();
        const event = next.value;
        if (event.live) {
          // A position comes after the stored events up to its seq; one read before a later event
          // committed still is the driver's latest: it is sent after that event, with its seq and status.
          if (event.seq > this.last) await this.fromDatabase(event.seq + 1);
          if (this.ended) return;
          this.emitPosition(event.seq === this.last ? event : { ...event, seq: this.last, status: this.latest?.status ?? event.status });
          continue;
        }
        if (event.seq <= this.last) continue; // already emitted (read or caught up)
        if (event.seq > this.last + 1) await this.fromDatabase(event.seq); // a gap: read what was missed
        if (this.ended || event.seq <= this.last) continue;
        this.emit(event);
      }
    } catch (error) {
      failed(error);
      const failure = error instanceof Error ? error : new Error('The order feed failed.');
      for (const follower of this.followers) follower.end(failure);
    } finally {
      catchUp?.cancel();
      this.closed(this);
      for (const follower of this.followers) follower.end();
      await live.return?.();
    }
  }
}

/** The position of the driver carrying an order, as a live position after its last event, if there is one. */
async function currentPosition(
  services: Services,
  em: EntityManager,
  order: FeedOrder,
  now: { status: string; driverId: number | null; seq: number },
): Promise<OrderEventMessage | null> {
  if (now.driverId === null || !ACTIVE_DRIVER_STATUSES.includes(now.status as OrderStatus)) return null;
  const position = services.positions.latest(now.driverId) ?? (await storedPosition(em, now.driverId));
  if (!position) return null;
  const { latitude, longitude, at } = position;
  return {
    orderId: order.id,
    seq: now.seq,
    type: 'driver_location',
    status: now.status,
    at: at.toISOString(),
    data: { latitude, longitude },
    storeId: order.storeId,
    driverId: now.driverId,
    live: true,
  };
}

/** This instance's feeds, by order id. */
const feedsByServices = new WeakMap<Services, Map<number, OrderFeed>>();

/**
 * The stream of one follower of an order whose visibility the caller has checked: the stored
 * events after `afterSeq`, the driver's latest position once, then the order's live events.
 */
export async function followOrder(ctx: Context, order: FeedOrder, afterSeq: number): Promise<AsyncIterableIterator<OrderEventMessage>> {
  let feeds = feedsByServices.get(ctx.services);
  if (!feeds) feedsByServices.set(ctx.services, (feeds = new Map<number, OrderFeed>()));
  let feed = feeds.get(order.id);
  if (!feed || feed.ended || feed.stopping) {
    const own = feeds;
    feed = new OrderFeed(order, ctx.em.fork(), ctx.services, (closed) => {
      if (own.get(order.id) === closed) own.delete(order.id);
    });
    feeds.set(order.id, feed);
  }
  feed.joining += 1;
  try {
    await feed.ready;
    const follower = new Follower((f) => feed.leave(f));
    // Positions are not replayed: the driver's latest one comes once, after the stored events.
    const position = feed.ended ? null : await currentPosition(ctx.services, ctx.em, feed.order, feed.now());
    for (const event of feed.history) if (event.seq > afterSeq) follower.push(event);
    if (feed.ended) {
      // Ended before we joined (its final event is in the copy, maybe at or before afterSeq):
      // nothing more can come, so the stream ends instead of idling.
      follower.end();
      return follower;
    }
    // The position was read before events that may have come since: it follows them, with their seq and status.
    if (position) follower.push({ ...position, seq: feed.now().seq, status: feed.now().status }, Date.parse(position.at));
    feed.followers.add(follower);
    return follower;
  } finally {
    feed.joining -= 1;
    feed.closeIfIdle();
  }
}
