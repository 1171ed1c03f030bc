/**
 * How payment states follow each other. Provider news (call answers, webhooks, reconciliation)
 * may arrive late, twice or out of order; a state is only replaced by one further along, so the
 * last word is always the furthest state, whatever the order of arrival.
 */
import type { PaymentStatus } from '../../common/payment-provider';

const RANK: Record<PaymentStatus, number> = {
  pending: 0,
  requires_action: 1,
  failed: 2, // the customer may still retry the same card intent: authorised comes after
  authorized: 3,
  capture_failed: 4, // a later capture may still succeed
  cancelled: 4.5, // given up on our side; the provider's "released" confirms it
  captured: 5,
  collected: 5,
  released: 5,
  partially_refunded: 6,
  refunded: 7,
};

export const isFurther = (next: PaymentStatus, current: PaymentStatus) => RANK[next] > RANK[current];

/** A payment in one of these is the order's one live payment (a partial unique index holds it). */
export const LIVE_STATUSES: PaymentStatus[] = ['pending', 'requires_action', 'authorized'];

/** The provider must still be asked to give the money back (or drop the intent) for these. */
export const RELEASABLE_STATUSES: PaymentStatus[] = ['pending', 'requires_action', 'authorized', 'failed', 'cancelled'];

/** Statuses customers see as a timeline entry / live event (a replaced attempt's release is not news). */
export function isNews(next: PaymentStatus, previous: PaymentStatus): boolean {
  if (next === previous) return next === 'partially_refunded'; // another refund; else nothing new
  if (next === 'released') return previous === 'authorized';
  return ['authorized', 'failed', 'captured', 'capture_failed', 'collected', 'partially_refunded', 'refunded'].includes(next);
}
