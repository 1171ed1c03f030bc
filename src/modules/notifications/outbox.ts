/**
 * Writing notifications: which kinds an order event causes, for whom, and their outbox rows,
 * inserted in the event's own transaction (order-events.ts `appendEvent` calls `enqueue`), so
 * that a commit always carries its notifications and a rollback none. Sending is worker.ts's.
 */
import { EventEmitter } from 'node:events';
import { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, PreparedValue } from '../../common/entity-manager';
import { DEFAULT_SESSION_NAME, sessionNamePrefix } from '../../common/session-name';
import type { EventOutbox, OutboxCause, OutboxEventFacts } from '../../common/event-outbox';

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

/**
 * The kinds an event causes, with their delay in seconds (0 = at once). A rejection is
 * `order_rejected` here; the outbox statement makes it `order_auto_rejected` when the order's
 * reason says nobody answered in time (it reads the order anyway). A new order's reminder is
 * not written with it: most orders are answered before it is due, so the worker writes it
 * only for the orders still unanswered then (`remindUnanswered`).
 */
export function kindsOf(event: OutboxEventFacts): { kind: NotificationKind; delay: number }[] {
  const now = (kind: NotificationKind) => ({ kind, delay: 0 });
  if (event.type === 'driver_assigned') return [now('driver_assigned')];
  if (event.type === 'payment') {
    const status = event.data?.paymentStatus;
    if (status === 'authorized') return [now('payment_authorized')];
    if (status === 'failed') return [now('payment_declined')];
    if (status === 'released') return [now('payment_released')];
    return [];
  }
  if (event.type !== 'status') return [];
  switch (event.status) {
    case 'pending_acceptance':
      return [now('new_order')];
    case 'accepted':
      return [now('order_accepted')];
    case 'rejected':
      return [now('order_rejected')];
    case 'cancelled':
      return [now('order_cancelled')];
    case 'ready_for_pickup':
      return [now('order_ready')];
    case 'picked_up':
      return [now('order_on_the_way')];
    case 'delivered':
      return [now('order_delivered')];
    default:
      return [];
  }
}

/**
 * The outbox rows of one event: per kind, one row per device of the recipient with a push
 * token and one per browser subscribed to Web Push (unless they turned that channel off), and
 * for a new order whose owner hears no push of either kind, one WhatsApp row unless WhatsApp
 * is off too. Order messages ignore the kind switches and quiet hours (those are for
 * marketing-type messages). One statement per event, whatever its rows. Answers how many rows were written.
 */
export async function enqueue(tx: EntityManager, cause: OutboxCause, orderId: number, event: OutboxEventFacts): Promise<number> {
  const statement = enqueueStatement(cause, orderId, event);
  if (!statement) return 0;
  if (!tx.isInTransaction()) throw new Error("An event's notifications are written in the event's transaction");
  // Sent prepared on the transaction's connection: PostgreSQL plans this text once per connection
  // rather than on every checkout (its planning cost ~4x its execution: notifications-4.md).
  const rows = await executePrepared<{ n: number }>(tx, statement.sql, statement.params);
  return rows[0].n;
}

/** `enqueue`'s statement (its one row: `n`, the rows written), or null when the event causes none (nothing to send). */
export function enqueueStatement(
  cause: OutboxCause,
  orderId: number,
  event: OutboxEventFacts,
): { sql: string; params: PreparedValue[] } | null {
  const kinds = kindsToWrite(event);
  return kinds && kindsStatement(cause, orderId, kinds);
}

/**
 * The event's outbox rows as common table expressions to put in the statement that writes the
 * event (`, n_... as (...)`, the last one the insert): the order's row is the CTE named `order`
 * (its columns id, user_id, store_id, driver_id, rejection_reason: the statement's own insert of
 * the order, which the statement's other parts do not see in the table), the event's id that of
 * the CTE named `event`. One round trip for the event and its notifications (checkout:
 * checkout-query.ts `insertOrderStatement`). Null when the event causes none.
 */
export function enqueueCtes(
  names: { order: string; event: string },
  event: OutboxEventFacts,
): { sql: string; params: PreparedValue[] } | null {
  const kinds = kindsToWrite(event);
  if (!kinds) return null;
  const { sql, params } = kindsCtes(kinds, names.order, `(select id from ${names.event})`, 'null::bigint');
  return {
    sql: `,
     ${sql}`,
    params,
  };
}

function kindsToWrite(event: OutboxEventFacts): { kind: NotificationKind; delay: number }[] | null {
  if (event.type === 'driver_location' || !outboxSettings.enabled) return null; // never a notification: skip even the lookup
  const kinds = kindsOf(event);
  return kinds.length === 0 ? null : kinds;
}

/** The outbox rows of `kinds` about one order, caused by `cause` (`enqueueStatement`'s text for the kinds an event causes). */
function kindsStatement(
  cause: OutboxCause,
  orderId: number,
  kinds: { kind: NotificationKind; delay: number }[],
): { sql: string; params: PreparedValue[] } {
  const ctes = kindsCtes(kinds, 'n_order', '?::bigint', '?::bigint');
  return {
    sql: `with n_order as (select id, user_id, store_id, driver_id, rejection_reason from orders where id = ?::int),
     ${ctes.sql}
     select count(*)::int as n from n_written`,
    params: [orderId, ...ctes.params, 'orderEvent' in cause ? cause.orderEvent : null, 'paymentEvent' in cause ? cause.paymentEvent : null],
  };
}

/**
 * The CTEs writing the outbox rows of `kinds` about the order in the CTE `order` (one row: id,
 * user_id, store_id, driver_id, rejection_reason), caused by the order event `eventId` or the
 * payment event `paymentEventId` (SQL expressions: a placeholder's value follows `params`). The
 * last one, `n_written`, is the insert (one row per row written).
 */
function kindsCtes(
  kinds: { kind: NotificationKind; delay: number }[],
  order: string,
  eventId: string,
  paymentEventId: string,
): { sql: string; params: PreparedValue[] } {
  const values = kinds.map(() => '(?::text, ?::text, ?::int)').join(', ');
  const params = kinds.flatMap(({ kind, delay }) => [kind, KINDS[kind], delay]);
  return {
    sql: `n_kinds (kind, role, delay) as (values ${values}),
     n_who as (
       select o.id as order_id,
         case when k.kind = 'order_rejected' and o.rejection_reason = 'not_accepted_in_time' then 'order_auto_rejected' else k.kind end as kind,
         k.delay, case k.role when 'customer' then o.user_id when 'owner' then s.owner_id else d.user_id end as user_id
       from n_kinds k cross join ${order} o join stores s on s.id = o.store_id left join drivers d on d.id = o.driver_id
     ),
     n_prefs as (
       select who.*, coalesce(p.push, true) as push, coalesce(p.whatsapp, true) as whatsapp, coalesce(p.web_push, true) as web_push,
         exists (select 1 from user_devices dev where dev.user_id = who.user_id and dev.push_token is not null) as has_device,
         exists (select 1 from web_push_subscriptions w where w.user_id = who.user_id) as has_browser
       from n_who who left join notification_preferences p on p.user_id = who.user_id
       where who.user_id is not null
     ),
     n_wanted as (
       select prefs.order_id, prefs.kind, prefs.delay, prefs.user_id, 'push' as channel, 'device:' || dev.id as target
       from n_prefs prefs join user_devices dev on dev.user_id = prefs.user_id and dev.push_token is not null
       where prefs.push
       union all
       select prefs.order_id, prefs.kind, prefs.delay, prefs.user_id, 'web_push', 'webpush:' || w.id
       from n_prefs prefs join web_push_subscriptions w on w.user_id = prefs.user_id
       where prefs.web_push
       union all
       select order_id, kind, delay, user_id, 'whatsapp', 'phone'
       from n_prefs
       where kind = 'new_order' and whatsapp and not (push and has_device) and not (web_push and has_browser)
     ),
     n_written as (
       insert into notification_outbox (event_id, payment_event_id, order_id, kind, user_id, channel, target, due_at)
       select ${eventId}, ${paymentEventId}, order_id, kind, user_id, channel, target, now() + make_interval(secs => delay) from n_wanted
       on conflict do nothing
       returning 1
     )`,
    params,
  };
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
 * same recipients and channels, caused by the order's first event: the unique keys make a
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
        const { sql, params } = kindsStatement({ orderEvent: String(order.event_id) }, order.order_id, [
          { kind: 'accept_reminder', delay: 0 },
        ]);
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
export const eventOutbox: EventOutbox = { write: enqueue, ctes: enqueueCtes, wake: () => outboxSignal.emit('due') };
