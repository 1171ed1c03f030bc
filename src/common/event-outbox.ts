/**
 * What the writers of order and payment events ask of notifications: the notifications an event
 * causes, written by the statement that writes the event, and a wake-up of the senders after commit.
 * Notifications implement it (notifications/outbox.ts `eventOutbox`) and createApp
 * (src/app.ts) connects it, so orders and payments never import notifications, which
 * describe orders and payments and import them. Connected per process, not per request: events
 * are written inside transactions that carry no request context (dispatch, payment news).
 */
import type { PreparedValue } from './entity-manager';

/**
 * The CTEs of the statement writing the event that the notifications read: `order` holds the
 * order's row (id, status, user_id, store_id, driver_id, rejection_reason); `event` the order
 * event's `id`, or `paymentEvent` the payment event's (a payment's news after the order's stream
 * has ended: payment_events).
 */
export type OutboxCteNames =
  { order: string; event: string; paymentEvent?: never } | { order: string; paymentEvent: string; event?: never };

/** The facts of the event the notifications are about. */
export interface OutboxEventFacts {
  type: 'status' | 'driver_assigned' | 'driver_location' | 'payment';
  /** The order's status with the event; null: the one the statement's `order` row has (a status event's kinds follow it). */
  status: string | null;
  data: Record<string, unknown> | null;
}

export interface EventOutbox {
  /**
   * The event's notifications as common table expressions of the statement that writes the event
   * (text starting with a comma, to follow its other CTEs; placeholders' values in `params`), so
   * that they are written in the event's transaction, by its statement, at no round trip of their
   * own. Null when the event causes none.
   */
  ctes(names: OutboxCteNames, event: OutboxEventFacts): { sql: string; params: PreparedValue[] } | null;
  /** After a commit that wrote rows: this process's senders go now rather than at their next poll. */
  wake(): void;
}

let connected: EventOutbox | null = null;

export function connectEventOutbox(outbox: EventOutbox): void {
  connected = outbox;
}

/** The connected outbox; an event written before the composition root connected one is a wiring bug, not a silent loss. */
export function eventOutbox(): EventOutbox {
  if (connected === null) throw new Error('No event outbox is connected (src/app.ts connects notifications/outbox.ts)');
  return connected;
}
