/**
 * Writing notifications: which kinds an order event causes, for whom, and their outbox rows,
 * inserted by the very statement that writes the event (`enqueueCtes`: order-events.ts,
 * checkout-query.ts, payment-ledger.ts), so that a commit always carries its notifications and a
 * rollback none. Sending is worker.ts's.
 */
import { EventEmitter } from 'node:events';
import { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, PreparedValue } from '../../common/entity-manager';
import { DEFAULT_SESSION_NAME, sessionNamePrefix } from '../../common/session-name';
import type { EventOutbox, OutboxCteNames, OutboxEventFacts } from '../../common/event-outbox';

export type Recipient = 'customer' | 'owner' | 'driver';

/** Every kind of notification and who receives it. */
export const KINDS = {
  new_order: 'owner',
  order_cancelled: 'owner',
  payment_authorized: 'owner',
  accept_reminder: 'owner',
  order_accepted: 'customer',
  order_rejected: 'customer',
  order_auto_rejected: 'customer',
  order_ready: 'customer',
  order_on_the_way: 'customer',
  order_delivered: 'customer',
  payment_declined: 'customer',
  payment_released: 'customer',
  driver_assigned: 'driver',
} as const satisfies Record<string, Recipient>;
export type NotificationKind = keyof typeof KINDS;

/**
 * Settings the app sets once (createApp): the reminder's delay after a new order, the
 * deadline after which the order is rejected (no reminder then) and the name of the service's
 * sessions (config's `database.sessionName`). `enabled` is off only in the notifications
 * benchmark's "without" runs (scripts/bench-notifications.ts).
 */
export const outboxSettings = { reminderAfterSeconds: 300, acceptTimeoutSeconds: 600, sessionName: DEFAULT_SESSION_NAME, enabled: true };

/** Wakes this process's workers after a commit that wrote rows (polling covers other instances). */
export const outboxSignal = new EventEmitter();

/** The kind a status event causes, by the order's new status (none for the others). */
const STATUS_KINDS: Partial<Record<string, NotificationKind>> = {
  pending_acceptance: 'new_order',
  accepted: 'order_accepted',
  rejected: 'order_rejected',
  cancelled: 'order_cancelled',
  ready_for_pickup: 'order_ready',
  picked_up: 'order_on_the_way',
  delivered: 'order_delivered',
};

/** A kind to write and the order status it needs (null: any). */
type KindToWrite = { kind: NotificationKind; status: string | null };

export function kindsOf(event: OutboxEventFacts): KindToWrite[] {
  const now = (kind: NotificationKind) => ({ kind, status: null });
  if (event.type === 'driver_assigned') return [now('driver_assigned')];
  if (event.type === 'payment') {
    const status = event.data?.paymentStatus;
    if (status === 'authorized') return [now('payment_authorized')];
    if (status === 'failed') return [now('payment_declined')];
    if (status === 'released') return [now('payment_released')];
    return [];
  }
  if (event.type !== 'status') return [];
  if (event.status === null) {
    return Object.entries(STATUS_KINDS).map(([status, kind]) => ({ kind: kind!, status }));
  }
  const kind = STATUS_KINDS[event.status];
  return kind ? [now(kind)] : [];
}

/**
 * The outbox rows of one event, as a common table expression to put in the statement that writes
 * the event (`, n_written as (insert ...)`; `kindsCtes`): per kind, one row per device of the
 * recipient with a push token and one per browser subscribed to Web Push (unless they turned that
 * channel off), and for a new order whose owner hears no push of either kind, one WhatsApp row
 * unless WhatsApp is off too. Order messages ignore the kind switches and quiet hours (those are
 * for marketing-type messages). `names.order` is the CTE holding the order's row (its columns id,
 * status, user_id, store_id, driver_id, rejection_reason: an insert's or update's `returning`, which
 * the statement's other parts do not see in the table); `names.event` the one holding the order
 * event's `id`, or `names.paymentEvent` the payment event's (a payment's news after the order's
 * stream has ended). One round trip for the event and its notifications. Null when the event causes
 * none (nothing to write, not even a lookup).
 */
export function enqueueCtes(names: OutboxCteNames, event: OutboxEventFacts): { sql: string; params: PreparedValue[] } | null {
  if (event.type === 'driver_location' || !outboxSettings.enabled) return null;
  const kinds = kindsOf(event);
  if (kinds.length === 0) return null;
  const cause = (name: string | undefined) => (name === undefined ? 'null::bigint' : `(select id from ${name})`);
  return { sql: `,\n     ${kindsCtes(kinds, names.order, cause(names.event), cause(names.paymentEvent), false)}`, params: [] };
}

/** The outbox rows of `kinds` about one order, caused by the order event `orderEvent` (a statement of its own: the reminders'). */
function kindsStatement(orderId: number, orderEvent: string, kinds: KindToWrite[]): { sql: string; params: PreparedValue[] } {
  return {
    sql: `with n_order as (select id, status, user_id, store_id, driver_id, rejection_reason from orders where id = ?::int),
     ${kindsCtes(kinds, 'n_order', '?::bigint', 'null::bigint', true)}
     select count(*)::int as n from n_written`,
    params: [orderId, orderEvent],
  };
}

/**
 * The CTE `n_written` writing the outbox rows of `kinds` about the order in the CTE `order` (one
 * row: id, status, user_id, store_id, driver_id, rejection_reason), caused by the order event
 * `eventId` or the payment event `paymentEventId` (SQL expressions; a placeholder's value follows
 * the statement's others); a kind tagged with a status is written only when the order has it. One
 * insert, one row per row written: per kind its recipient (a select of its own, the kind and what
 * it joins written in, so one kind plans as one row), then the recipient's targets
 * (notification-target.entity.ts: its devices with a push token, its browsers subscribed to Web
 * Push, or WhatsApp, as its preferences say; kept by triggers), WhatsApp for a new order only.
 * Every plan node is set up again on each execution of the prepared statement: reading the
 * preferences, devices and browsers here cost a third of what notifications added to the
 * checkout's statement (docs/perf/2026-11-28-notifications-pg-2.md). `arbiter`: a writer that can
 * meet rows already written (the reminders': another instance's pass, or its own looking again)
 * writes nothing for them, the unique key the arbiter; an event's own statement writes its new
 * event's rows, which nothing can have written before (no arbiter: a speculative insertion costs).
 */
function kindsCtes(kinds: KindToWrite[], order: string, eventId: string, paymentEventId: string, arbiter: boolean): string {
  const whatsapp = kinds.some(({ kind }) => kind === 'new_order');
  const onlyNewOrder = whatsapp && kinds.length === 1;
  const channels = onlyNewOrder ? '' : ` and (t.channel <> 'whatsapp'${whatsapp ? ` or w.kind = 'new_order'` : ''})`;
  return `n_written as (
       insert into notification_outbox (event_id, payment_event_id, order_id, kind, user_id, channel, target)
       select ${eventId}, ${paymentEventId}, w.order_id, w.kind, w.user_id, t.channel, t.target
       from (${kinds.map((k) => recipient(k, order)).join('\n         union all ')}) w
       join notification_targets t on t.user_id = w.user_id${channels}${arbiter ? '\n       on conflict do nothing' : ''}
       returning 1
     )`;
}

/**
 * The recipient of one kind about the order in the CTE `order`: its order_id, kind and user_id
 * (the customer, the store's owner or the driver). The kind and the status are code's constants
 * (KINDS, STATUS_KINDS), written into the text.
 */
function recipient({ kind, status }: KindToWrite, order: string): string {
  const role = KINDS[kind];
  const who = role === 'customer' ? 'o.user_id' : role === 'owner' ? 's.owner_id' : 'd.user_id';
  const join = role === 'owner' ? ' join stores s on s.id = o.store_id' : role === 'driver' ? ' join drivers d on d.id = o.driver_id' : '';
  // A rejection nobody answered in time is the auto-rejection (the order's reason says so).
  const written =
    kind === 'order_rejected'
      ? `case when o.rejection_reason = 'not_accepted_in_time' then 'order_auto_rejected' else 'order_rejected' end`
      : `'${kind}'`;
  return `select o.id as order_id, ${written}::text as kind, ${who} as user_id from ${order}${order === 'o' ? '' : ' o'}${join}${status === null ? '' : ` where o.status = '${status}'`}`;
}

/**
 * Where a worker's reminder passes have got to (PostgreSQL's text of a timestamp, so that its
 * microseconds come back as they went): every order placed from then on is still to be looked
 * at. It is the pass's horizon, or the start of the oldest transaction then open on the database
 * if earlier: an order's `created_at` is its transaction's start, so one committed late (a slow
 * checkout under load) appears behind a horizon a pass has already passed, and can only be one of
 * those open transactions. Measured rather than a margin from the session limits: PostgreSQL 15
 * (the deployed server) has no transaction timeout, and statement and idle-in-transaction timeouts
 * bound a transaction's parts, not its length.
 */
export type ReminderMark = string;

/** The reminder pass's statements take this many orders at a time. */
const REMINDER_BATCH = 200;

/**
 * The owner's reminder of each order still unanswered `reminderAfterSeconds` after it was
 * placed (and not yet past its deadline), written once per order as its event's rows are (the
 * same recipients and channels, caused by the order's first event: the unique key makes a
 * second writer's rows, another instance's or a pass's looking again, nothing). The worker calls
 * it every few seconds, so a reminder goes out within that time of being due. A pass looks only
 * at the orders placed after `since`, the mark the previous pass answered, up to its horizon (now
 * - `reminderAfterSeconds`), in batches until none is left: an order whose owner hears no
 * reminder (every channel off, no row written) is looked at again only while a transaction older
 * than it is open. Answers how many orders it looked at, how many rows it wrote and the new mark.
 */
export async function remindUnanswered(
  em: EntityManager,
  since: ReminderMark | null,
): Promise<{ examined: number; written: number; mark: ReminderMark | null }> {
  if (!outboxSettings.enabled) return { examined: 0, written: 0, mark: since };
  // First and in a statement of its own, so that any transaction the orders' reads below do not
  // see yet was open here (or began after now(), placing its order after the horizon). Only the
  // service's own sessions (any instance's: orm.ts names them) can be placing an order: another
  // application's long transaction (a pg_dump, an operator's open psql) would otherwise hold the
  // look-back for hours when the role may read every session. This one is not counted.
  const [{ horizon, mark, expired }] = await em.execute<{ horizon: string; mark: string; expired: string }[]>(
    // `expired`: an order placed before it is past its deadline (rejected, no reminder).
    `select h.horizon::text as horizon, (now() - make_interval(secs => ?))::text as expired,
       least(h.horizon, (select min(a.xact_start) from pg_stat_activity a
         where a.datname = current_database() and a.backend_type = 'client backend' and a.pid <> pg_backend_pid()
           and starts_with(a.application_name, ?)))::text as mark
     from (select now() - make_interval(secs => ?) as horizon) h`,
    [outboxSettings.acceptTimeoutSeconds, sessionNamePrefix(outboxSettings.sessionName), outboxSettings.reminderAfterSeconds],
  );
  let after = { placedAt: since ?? '-infinity', orderId: 0 };
  let examined = 0;
  let written = 0;
  for (;;) {
    const due = await em.transactional(async (tx) => {
      const rows = await tx.execute<{ order_id: number; event_id: string; placed_at: string }[]>(
        `select o.id as order_id, e.id as event_id, o.created_at::text as placed_at
         from orders o join order_events e on e.order_id = o.id and e.seq = 1
         where o.status = 'pending_acceptance'
           and o.created_at <= ?::timestamptz and o.created_at > ?::timestamptz
           and (o.created_at, o.id) > (?::timestamptz, ?::int)
           and not exists (select 1 from notification_outbox n where n.order_id = o.id and n.kind = 'accept_reminder')
         order by o.created_at, o.id limit ?`,
        [horizon, expired, after.placedAt, after.orderId, REMINDER_BATCH],
      );
      for (const order of rows) {
        const { sql, params } = kindsStatement(order.order_id, String(order.event_id), [{ kind: 'accept_reminder', status: null }]);
        written += (await executePrepared<{ n: number }>(tx, sql, params))[0].n;
      }
      return rows;
    });
    examined += due.length;
    if (due.length < REMINDER_BATCH) return { examined, written, mark };
    const last = due[due.length - 1];
    after = { placedAt: last.placed_at, orderId: last.order_id };
  }
}

/** What order-events.ts and payment-ledger.ts write through (connected by src/app.ts). */
export const eventOutbox: EventOutbox = { ctes: enqueueCtes, wake: () => outboxSignal.emit('due') };
