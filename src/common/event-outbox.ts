/**
 * What the writers of order and payment events ask of notifications: the notifications an event
 * causes, written in the event's own transaction, and a wake-up of the senders after commit.
 * Notifications implement it (notifications/outbox.ts `eventOutbox`) and createApp
 * (src/app.ts) connects it, so orders and payments never import notifications, which
 * describe orders and payments and import them. Connected per process, not per request: events
 * are written inside transactions that carry no request context (dispatch, payment news).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PreparedValue } from './entity-manager';

/** What caused the rows: an order event, or a payment's news after the order's stream has ended (payment_events). */
export type OutboxCause = { orderEvent: string } | { paymentEvent: string };

/** The facts of the event the notifications are about. */
export interface OutboxEventFacts {
  type: 'status' | 'driver_assigned' | 'driver_location' | 'payment';
  status: string;
  data: Record<string, unknown> | null;
}

export interface EventOutbox {
  /** Writes the event's notifications in `tx`; answers how many rows were written. */
  write(tx: EntityManager, cause: OutboxCause, orderId: number, event: OutboxEventFacts): Promise<number>;
  /**
   * The event's notifications as common table expressions of the statement that writes the event
   * (text starting with a comma, to follow its other CTEs; placeholders' values in `params`), so
   * that they cost no round trip of their own: `order` names the CTE holding the order's row
   * (id, user_id, store_id, driver_id, rejection_reason), `event` the one holding the event's `id`.
   * Null when the event causes none.
   */
  ctes(names: { order: string; event: string }, event: OutboxEventFacts): { sql: string; params: PreparedValue[] } | null;
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
