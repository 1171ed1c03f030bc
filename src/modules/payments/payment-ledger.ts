/**
 * Applying what a provider reports to our payment rows, inside the caller's transaction. The
 * same function serves call answers, webhooks and reconciliation, so the three cannot disagree.
 * Locks are taken order first, then payment (as the order lifecycle does), so they never deadlock.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../common/logger';
import type { PaymentStatus, ProviderPayment } from '../../common/payment-provider';
import { appendEvent, orderEnded, OrderEventMessage } from '../orders/order-events';
import { eventOutbox } from '../../common/event-outbox';
import { executePrepared } from '../../common/entity-manager';
import { ACTIVE_DRIVER_STATUSES } from '../orders/order-status';
import { isFurther, isNews } from './payment-status';
import { toAmount } from '../../common/money';

export interface PaymentRow {
  id: number;
  order_id: number;
  order_status: string;
  status: PaymentStatus;
  provider: string;
  provider_ref: string | null;
  client_secret: string | null;
  amount_cents: number;
  currency: string;
  amount_refunded_cents: number;
  method_code: string;
  method_kind: 'card' | 'cash';
  capture_requested_at: Date | null;
  release_requested_at: Date | null;
  /** No later payment exists for the order. */
  latest: boolean;
}

const SELECT = `select p.id, p.order_id, o.status as order_status, p.status, p.provider, p.provider_ref, p.client_secret,
  p.amount_cents, p.currency, p.amount_refunded_cents, m.code as method_code, m.kind as method_kind,
  p.capture_requested_at, p.release_requested_at,
  not exists (select 1 from payments later where later.order_id = p.order_id and later.id > p.id) as latest
  from payments p join payment_methods m on m.id = p.method_id join orders o on o.id = p.order_id`;

/** The payment, locked with its order for the rest of the transaction. */
export async function lockPayment(tx: EntityManager, paymentId: number): Promise<PaymentRow | null> {
  const [owner] = await tx.execute<{ order_id: number }[]>(`select order_id from payments where id = ?`, [paymentId]);
  if (!owner) return null;
  await tx.execute(`select id from orders where id = ? for update`, [owner.order_id]);
  const [row] = await tx.execute<PaymentRow[]>(`${SELECT} where p.id = ? for update of p`, [paymentId]);
  return row ?? null;
}

/** The order's payments, newest first (no lock). */
export async function paymentsOfOrder(em: EntityManager, orderId: number): Promise<PaymentRow[]> {
  return em.execute<PaymentRow[]>(`${SELECT} where p.order_id = ? order by p.id desc`, [orderId]);
}

/**
 * One news of the payment: always in its history (payment_events); also on the order's live
 * stream while the order has not ended. After its final status the order's stream is closed,
 * so its last event stays the last one a follower receives (docs/decisions.md, "Payment history");
 * the customer still hears of their money (a hold released after a rejection): the news's
 * notifications are written to the outbox by the news's own statement, as `appendEvent` writes an
 * order event's. No wake-up follows the commit: the workers' poll sends them within a second.
 */
export async function paymentEvent(
  tx: EntityManager,
  row: PaymentRow,
  status: PaymentStatus,
  amountCents = row.amount_cents,
  extra: Record<string, unknown> = {},
): Promise<OrderEventMessage[]> {
  const values = [row.id, status, amountCents, Object.keys(extra).length > 0 ? JSON.stringify(extra) : null];
  if (await orderEnded(tx, row.order_id)) {
    // The news and its notifications in one statement (`n_order`: what they say of the order).
    const notifications = eventOutbox().ctes(
      { order: 'n_order', paymentEvent: 'p' },
      { type: 'payment', status: row.order_status, data: { paymentStatus: status } },
    );
    await executePrepared(
      tx,
      `with p as (
         insert into payment_events (payment_id, status, amount_cents, data) values (?::int, ?::text, ?::int, ?::jsonb) returning id),
       n_order as (select id, status, user_id, store_id, driver_id, rejection_reason from orders where id = ?::int)${notifications?.sql ?? ''}
       select id from p`,
      [...values, row.order_id, ...(notifications?.params ?? [])],
    );
    return [];
  }
  await tx.execute(`insert into payment_events (payment_id, status, amount_cents, data) values (?, ?, ?, ?)`, values);
  const event = await appendEvent(tx, row.order_id, 'payment', {
    paymentId: row.id,
    paymentStatus: status,
    method: row.method_code,
    amount: toAmount(amountCents),
    currency: row.currency,
    ...extra,
  });
  return [event];
}

/** Moves the payment to `status` (with extra columns) and answers its event when it is news. */
export async function setStatus(
  tx: EntityManager,
  row: PaymentRow,
  status: PaymentStatus,
  set: Record<string, unknown> = {},
  eventAmountCents?: number,
): Promise<OrderEventMessage[]> {
  const columns = Object.keys(set);
  await tx.execute(`update payments set status = ?, updated_at = now()${columns.map((c) => `, ${c} = ?`).join('')} where id = ?`, [
    status,
    ...Object.values(set),
    row.id,
  ]);
  return isNews(status, row.status) ? paymentEvent(tx, row, status, eventAmountCents) : [];
}

export type Outcome = 'applied' | 'ignored' | 'refused';

/** failure_code of a card whose hold went after the order was accepted (operators count these). */
export const HOLD_LOST = 'hold_lost_after_acceptance';

/**
 * Applies a provider's report. Refuses (and logs) an amount or currency other than the
 * payment's; ignores anything not further along than what we know (replays, late events);
 * and when an authorisation arrives for a payment nobody wants any more (the order ended, or
 * another payment replaced it), asks for its release instead of taking it.
 */
export async function applyReport(
  tx: EntityManager,
  paymentId: number,
  reported: ProviderPayment,
  logger: Logger,
): Promise<{ outcome: Outcome; events: OrderEventMessage[]; row: PaymentRow | null }> {
  const row = await lockPayment(tx, paymentId);
  if (!row) return { outcome: 'ignored', events: [], row };
  if (reported.amountCents !== row.amount_cents || reported.currency.toLowerCase() !== row.currency) {
    logger.error(
      {
        paymentId,
        orderId: row.order_id,
        expected: { amount: row.amount_cents, currency: row.currency },
        reported: { amount: reported.amountCents, currency: reported.currency, ref: reported.ref },
      },
      'payment report refused: amount or currency does not match the order',
    );
    return { outcome: 'refused', events: [], row };
  }
  const set: Record<string, unknown> = {};
  if (reported.ref && !row.provider_ref) set.provider_ref = reported.ref;
  if (reported.clientSecret && !row.client_secret) set.client_secret = reported.clientSecret;

  const refundGrew = (reported.amountRefundedCents ?? 0) > row.amount_refunded_cents;
  const further = isFurther(reported.status, row.status) || (refundGrew && reported.status.endsWith('refunded'));
  if (!further) {
    if (Object.keys(set).length > 0) await setStatus(tx, row, row.status, set);
    return { outcome: 'ignored', events: [], row };
  }
  const unwanted = row.release_requested_at !== null || !row.latest || ['rejected', 'cancelled'].includes(row.order_status);
  if (unwanted && ['pending', 'requires_action', 'authorized'].includes(reported.status)) {
    // Keep it out of the live set; the release is (re)requested and settled after commit.
    const stays = row.status === 'failed' || row.status === 'cancelled' ? row.status : 'cancelled';
    await setStatus(tx, row, stays, { ...set, release_requested_at: row.release_requested_at ?? new Date() });
    return { outcome: 'applied', events: [], row };
  }
  if (row.method_kind === 'card' && row.status === 'authorized' && !['authorized', 'captured'].includes(reported.status)) {
    if (row.latest && !row.release_requested_at && (ACTIVE_DRIVER_STATUSES as string[]).includes(row.order_status)) {
      // The hold went (expired, cancelled at the provider) while the order is on its way: an operator must know now.
      logger.error(
        { alert: 'card_money_gone', orderId: row.order_id, paymentId, orderStatus: row.order_status, reported: reported.status },
        'the card hold of an accepted order is gone; its delivery will need cash',
      );
      set.failure_code = HOLD_LOST;
      set.failure_message = `The provider reported ${reported.status} while the order was ${row.order_status}.`;
    }
  }
  if (reported.status === 'failed' || reported.status === 'capture_failed') {
    set.failure_code = reported.failureCode ?? null;
    set.failure_message = reported.failureMessage?.slice(0, 500) ?? null;
  }
  if (reported.amountCapturedCents) set.amount_captured_cents = reported.amountCapturedCents;
  if (refundGrew) set.amount_refunded_cents = reported.amountRefundedCents;
  const amount = reported.status.endsWith('refunded') ? reported.amountRefundedCents : undefined;
  const events = await setStatus(tx, row, reported.status, set, amount);
  return { outcome: 'applied', events, row };
}
