/**
 * Order events: appended in the caller's transaction with the next per-order sequence number
 * (allocated by an UPDATE on the order row, so concurrent writers queue on its lock), and
 * published only after that transaction has committed. The notifications an event causes are
 * written here too, by the event's own statement (through common/event-outbox.ts, which
 * notifications implement): every writer of events passes through this one place.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { Context } from '../../context';
import { eventOutbox } from '../../common/event-outbox';
import { executePrepared, PreparedValue } from '../../common/entity-manager';
import type { AppPubSub } from '../../pubsub';
import type { OrderEventType } from './order-event.entity';
import { FINAL_STATUSES } from './order-status';
import type { Order } from './order.entity';

/** Where an order's events are published: to the order, its store and its driver. */
export const topics = {
  order: (id: number) => `order:${id}`,
  store: (id: number) => `store:${id}`,
  driver: (id: number) => `driver:${id}`,
};

/** What subscribers receive; plain JSON so that it crosses Redis unchanged. */
export interface OrderEventMessage {
  orderId: number;
  seq: number;
  type: OrderEventType;
  status: string;
  at: string;
  data: Record<string, unknown> | null;
  storeId: number;
  driverId: number | null;
  /**
   * A driver's position sent as it is (no row, never replayed): its seq is the order's last
   * stored event's, not a new one (docs/decisions.md "Driver positions").
   */
  live?: true;
}

export async function appendEvent(
  em: EntityManager,
  orderId: number,
  type: OrderEventType,
  data: Record<string, unknown> | null = null,
): Promise<OrderEventMessage> {
  if (!em.isInTransaction()) throw new Error("An order's events are appended in the transaction of what they record");
  // One statement: the sequence number taken on the order row (its lock queues concurrent
  // writers until this transaction ends), the event written with it and the event's
  // notifications (their kinds follow the status the order has). Sent prepared on the
  // transaction's connection: its text is the same for every event of a type.
  const notifications = eventOutbox().ctes({ order: 'o', event: 'e' }, { type, status: null, data });
  const [row] = await executePrepared<{
    seq: number;
    status: string;
    store_id: number;
    driver_id: number | null;
    id: string;
    created_at: Date;
  }>(
    em,
    `with o as (
       update orders set last_event_seq = last_event_seq + 1 where id = ?::int
       returning id, last_event_seq as seq, status, store_id, driver_id, user_id, rejection_reason),
     e as (
       insert into order_events (order_id, seq, type, status, data) select o.id, o.seq, ?::text, o.status, ?::jsonb from o
       returning id, created_at)${notifications?.sql ?? ''}
     select o.seq, o.status, o.store_id, o.driver_id, e.id, e.created_at from o, e`,
    [orderId, type, data === null ? null : JSON.stringify(data), ...(notifications?.params ?? [])],
  );
  return {
    orderId,
    seq: row.seq,
    type,
    status: row.status,
    at: new Date(row.created_at).toISOString(),
    data,
    storeId: row.store_id,
    driverId: row.driver_id,
  };
}

/**
 * An order's first event (seq 1, its status), as a CTE of the statement that inserts the order
 * (`o`: that insert's `returning id, status`; the order is inserted with `last_event_seq` 1):
 * checkout-query.ts `insertOrderStatement`. Answers the event row's id and time.
 */
export const FIRST_EVENT_SQL = `insert into order_events (order_id, seq, type, status) select o.id, 1, 'status', o.status from o
       returning id, created_at`;

/**
 * The first event's notifications (those `appendEvent` would write for it) as CTEs of the statement
 * with `FIRST_EVENT_SQL` (`o` the order's insert, returning status, user_id and rejection_reason
 * too; `e` the event's): written in the order's own statement, as `appendEvent` writes its. Null: none.
 */
export function firstEventNotifications(status: string): { sql: string; params: PreparedValue[] } | null {
  return eventOutbox().ctes({ order: 'o', event: 'e' }, { type: 'status', status, data: null });
}

/** After `FIRST_EVENT_SQL`'s row (its notifications written with it: `firstEventNotifications`): the message to publish. */
export function firstEventWritten(event: {
  orderId: number;
  eventId: string;
  status: string;
  at: Date;
  storeId: number;
  driverId: number | null;
}): OrderEventMessage {
  return {
    orderId: event.orderId,
    seq: 1,
    type: 'status',
    status: event.status,
    at: event.at.toISOString(),
    data: null,
    storeId: event.storeId,
    driverId: event.driverId,
  };
}

/** The order's final status event is written: its stream is closed, nothing more is appended to it. */
export async function orderEnded(em: EntityManager, orderId: number): Promise<boolean> {
  const [row] = await em.execute<{ ended: boolean }[]>(
    `select exists (select 1 from order_events where order_id = ? and type = 'status' and status in (?)) as ended`,
    [orderId, FINAL_STATUSES],
  );
  return row.ended;
}

/** Publishes committed events to the order's, its store's and its driver's subscribers. */
export function publishEvents(pubSub: AppPubSub, events: OrderEventMessage[]): void {
  // Their notifications are committed too: this instance's outbox worker sends them now.
  if (events.some((e) => e.type !== 'driver_location')) eventOutbox().wake();
  for (const event of events) {
    pubSub.publish(topics.order(event.orderId), event);
    pubSub.publish(topics.store(event.storeId), event);
    if (event.driverId !== null) pubSub.publish(topics.driver(event.driverId), event);
  }
}

/** A driver's position to the followers of one order they carry (not stored: see `live`). */
export function publishPosition(pubSub: AppPubSub, position: OrderEventMessage): void {
  pubSub.publish(topics.order(position.orderId), position);
}

/** Live events of one topic (a subscriber's stream; typed here, where the topics are published). */
export function subscribeEvents(pubSub: AppPubSub, topic: string): AsyncIterable<OrderEventMessage> {
  return pubSub.subscribe(topic) as AsyncIterable<OrderEventMessage>;
}

/** Stored events after `afterSeq`, as subscribers receive them (the replay of a resume). */
export async function eventsAfter(ctx: Context, order: Order, afterSeq: number): Promise<OrderEventMessage[]> {
  return storedEventsAfter(ctx.em, { id: order.id, storeId: order.store.id }, afterSeq);
}

/** The same, for an order known by its id and store (a feed shared by its followers reads on its own fork). */
export async function storedEventsAfter(
  em: EntityManager,
  order: { id: number; storeId: number },
  afterSeq: number,
): Promise<OrderEventMessage[]> {
  // Raw rows: a long-lived subscription must not fill its EntityManager with events.
  const rows = await em.execute<Omit<StoredEventRow, 'order_id' | 'store_id'>[]>(
    `select e.seq, e.type, e.status, e.created_at, e.data, o.driver_id
     from order_events e join orders o on o.id = e.order_id where e.order_id = ? and e.seq > ? order by e.seq`,
    [order.id, afterSeq],
  );
  return rows.map((e) => fromStoredRow({ ...e, order_id: order.id, store_id: order.storeId }));
}

type StoredEventRow = {
  order_id: number;
  seq: number;
  type: OrderEventType;
  status: string;
  created_at: Date;
  data: Record<string, unknown> | null;
  store_id: number;
  driver_id: number | null;
};

const fromStoredRow = (e: StoredEventRow): OrderEventMessage => ({
  orderId: Number(e.order_id),
  seq: e.seq,
  type: e.type,
  status: e.status,
  at: new Date(e.created_at).toISOString(),
  data: typeof e.data === 'string' ? (JSON.parse(e.data) as Record<string, unknown>) : e.data,
  storeId: e.store_id,
  driverId: e.driver_id,
});

const intArray = (values: number[]) => `{${values.map((v) => Math.trunc(v)).join(',')}}`;

/**
 * What a store board missed (its resume, `storeOrderUpdates(afterSeqs)`), in the order the events
 * were written: of each order of the stores it names, the events after the seq it names; of the
 * stores' other orders, the events of the last `windowSeconds` (orders it did not hold: new ones).
 */
export async function missedStoreEvents(
  em: EntityManager,
  storeIds: number[],
  seen: { orderId: number; seq: number }[],
  windowSeconds: number,
): Promise<OrderEventMessage[]> {
  if (storeIds.length === 0) return [];
  const columns = 'e.id, e.order_id, e.seq, e.type, e.status, e.created_at, e.data, o.store_id, o.driver_id';
  const orderIds = intArray(seen.map((s) => s.orderId));
  const rows = await em.execute<StoredEventRow[]>(
    `select ${columns}
     from unnest(?::int[], ?::int[]) s(order_id, seq)
     join order_events e on e.order_id = s.order_id and e.seq > s.seq
     join orders o on o.id = e.order_id
     where o.store_id = any(?::int[])
     union all
     select ${columns}
     from order_events e join orders o on o.id = e.order_id
     where o.store_id = any(?::int[]) and e.created_at > now() - make_interval(secs => ?) and e.order_id <> all(?::int[])
     order by id`,
    [orderIds, intArray(seen.map((s) => s.seq)), intArray(storeIds), intArray(storeIds), windowSeconds, orderIds],
  );
  return rows.map(fromStoredRow);
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
  const rows = await ctx.em.execute<StoredEventRow[]>(
    `select e.order_id, e.seq, e.type, e.status, e.created_at, e.data, o.store_id, o.driver_id
     from order_events e join orders o on o.id = e.order_id
     where o.${column === 'store_id' ? 'store_id' : 'driver_id'} in (?) and e.created_at > now() - make_interval(secs => ?)
     order by e.order_id, e.seq`,
    [ids, lookbackSeconds],
  );
  return rows.map(fromStoredRow);
}
