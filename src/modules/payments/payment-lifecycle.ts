/**
 * Payments follow the order (docs/decisions.md, "Payments"): a store may not accept a card
 * order before its authorisation; delivery takes the money (card capture, cash collected);
 * reject, expiry and cancel give the hold back.
 *
 * The order's transaction only records what must happen (capture_requested_at,
 * release_requested_at); the provider is called after commit (`settlePayments`), never while
 * the order row is locked, and the reconciliation job retries whatever a crash or an outage
 * left unsettled. Webhooks confirm the result.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidField } from '../../common/errors';
import { toAmount } from '../../common/money';
import type { Logger } from '../../common/logger';
import { PaymentProviders, PaymentStatus, ProviderError, ProviderPayment } from '../../common/payment-provider';
import type { DeliveryChoice } from '../../common/order-payments';
import type { TransitionName } from '../orders/order-status';
import { OrderEventMessage, publishEvents } from '../orders/order-events';
import type { AppPubSub } from '../../pubsub';
import { applyReport, lockPayment, paymentEvent, paymentsOfOrder, setStatus } from './payment-ledger';
import { RELEASABLE_STATUSES } from './payment-status';

export interface PaymentHookResult {
  events: OrderEventMessage[];
  /** Payments whose provider must now be called (after commit). */
  settle: number[];
}

/** Runs in the transition's transaction, after its conditional UPDATE (the order row is locked). */
export async function onOrderTransition(
  tx: EntityManager,
  orderId: number,
  move: string,
  currency: string,
  logger: Logger,
  choice: DeliveryChoice = {},
): Promise<PaymentHookResult> {
  const name = move as TransitionName;
  switch (name) {
    case 'accept':
      await requireAuthorisedCard(tx, orderId);
      return { events: [], settle: [] };
    case 'reject':
    case 'expire':
    case 'cancel':
      return releaseAll(tx, orderId);
    case 'deliver':
      return takeMoney(tx, orderId, currency, logger, choice);
    default:
      return { events: [], settle: [] };
  }
}

/** The latest attempt decides: a card that is not authorised (yet, or declined) keeps the order waiting. */
async function requireAuthorisedCard(tx: EntityManager, orderId: number) {
  const [latest] = await paymentsOfOrder(tx, orderId);
  if (latest?.method_kind === 'card' && latest.status !== 'authorized') {
    throw new AppError('VALIDATION', 'The order cannot be accepted before its card payment is authorised.', {
      fields: { payment: [`The card payment is ${latest.status}; the order waits for its authorisation (or another method).`] },
    });
  }
}

async function releaseAll(tx: EntityManager, orderId: number): Promise<PaymentHookResult> {
  const result: PaymentHookResult = { events: [], settle: [] };
  for (const p of await paymentsOfOrder(tx, orderId)) {
    if (!RELEASABLE_STATUSES.includes(p.status) || p.release_requested_at) continue;
    if (p.provider === 'cash') {
      if (p.status === 'pending') await setStatus(tx, p, 'cancelled');
      continue;
    }
    // An authorised card stays authorised until the provider confirms the release (then "released").
    const status = p.status === 'pending' || p.status === 'requires_action' ? 'cancelled' : p.status;
    await setStatus(tx, p, status, { release_requested_at: new Date() });
    result.settle.push(p.id);
  }
  return result;
}

/** The card payment statuses in which nothing is held or taken for the order any more. */
const CARD_MONEY_GONE: PaymentStatus[] = [
  'pending',
  'requires_action',
  'failed',
  'cancelled',
  'released',
  'refunded',
  'partially_refunded',
];

/**
 * Card: ask for the capture. Cash (or nothing chosen, which is cash): the driver collected it.
 * A card whose hold is gone (released, expired, refunded...) is never turned into cash silently:
 * the delivery is refused until the driver states they collected the total in cash
 * (`collectCash`), and operators are alerted either way (docs/decisions.md, "Card money gone
 * before delivery").
 */
async function takeMoney(
  tx: EntityManager,
  orderId: number,
  currency: string,
  logger: Logger,
  choice: DeliveryChoice,
): Promise<PaymentHookResult> {
  const [latest] = await paymentsOfOrder(tx, orderId);
  if (latest?.status === 'authorized') {
    if (choice.collectCash) {
      throw invalidField('collectCash', 'The card payment is authorised: the money is taken from the card, do not collect cash.');
    }
    await setStatus(tx, latest, 'authorized', { capture_requested_at: new Date() });
    return { events: [], settle: [latest.id] };
  }
  if (latest?.provider === 'cash' && latest.status === 'pending') {
    return { events: await setStatus(tx, latest, 'collected', { amount_captured_cents: latest.amount_cents }), settle: [] };
  }
  const cardGone = latest?.method_kind === 'card' && CARD_MONEY_GONE.includes(latest.status);
  if (cardGone && !choice.collectCash) {
    logger.error(
      { alert: CARD_MONEY_GONE_ALERT, orderId, paymentId: latest.id, paymentStatus: latest.status },
      'delivery refused: the card payment holds no money; the driver must collect cash',
    );
    const due = `${toAmount(latest.amount_cents)} ${latest.currency.toUpperCase()}`;
    throw invalidField(
      'payment',
      `The card payment is ${latest.status}: nothing is held for this order. Collect ${due} in cash and deliver with collect_cash: true.`,
    );
  }
  if (cardGone || !latest || (latest.method_kind === 'cash' && ['failed', 'cancelled'].includes(latest.status))) {
    const [row] = await tx.execute<{ id: number }[]>(
      `insert into payments (order_id, method_id, provider, status, amount_cents, currency, amount_captured_cents)
       select o.id, m.id, m.provider, ?, o.total_cents, ?, o.total_cents from orders o, payment_methods m
       where o.id = ? and m.code = ? returning id`,
      ['collected', latest?.currency ?? currency, orderId, 'cash'],
    );
    const created = (await lockPayment(tx, row.id))!;
    if (cardGone) {
      logger.error(
        { alert: CARD_MONEY_GONE_ALERT, orderId, paymentId: latest.id, paymentStatus: latest.status, cashPaymentId: created.id },
        'the card payment held no money at delivery; the driver collected cash',
      );
    }
    const extra = cardGone ? { choice: 'collect_cash', replaces: latest.id } : undefined;
    return { events: await paymentEvent(tx, created, 'collected', created.amount_cents, extra), settle: [] };
  }
  return { events: [], settle: [] };
}

/** The `alert` of the error logs of a card whose money went after acceptance (one key to count them by). */
export const CARD_MONEY_GONE_ALERT = 'card_money_gone';

export interface SettleDeps {
  payments: PaymentProviders;
  pubSub: AppPubSub;
  logger: Logger;
}

/**
 * Calls the provider for each payment whose capture or release was requested and not yet
 * confirmed, then applies the answer. Failures are logged and counted, never thrown: the order's
 * own change is already committed, and the reconciliation job will try again.
 */
export async function settlePayments(em: EntityManager, deps: SettleDeps, ids: number[]): Promise<void> {
  for (const id of ids) {
    try {
      await settleOne(em.fork(), deps, id);
    } catch (error) {
      deps.logger.error({ err: error, paymentId: id }, 'settling a payment failed');
    }
  }
}

async function settleOne(em: EntityManager, deps: SettleDeps, id: number): Promise<void> {
  const [p] = await em.execute<
    {
      provider: string;
      provider_ref: string | null;
      status: string;
      order_id: number;
      amount_cents: number;
      currency: string;
      capture_requested_at: Date | null;
      release_requested_at: Date | null;
    }[]
  >(
    `select provider, provider_ref, status, order_id, amount_cents, currency, capture_requested_at, release_requested_at from payments where id = ?`,
    [id],
  );
  const capture = p?.capture_requested_at && p.status === 'authorized';
  const release = p?.release_requested_at && (RELEASABLE_STATUSES as string[]).includes(p.status);
  if (!p || (!capture && !release)) return;
  const provider = deps.payments.get(p.provider);
  if (!provider) {
    deps.logger.warn({ paymentId: id, provider: p.provider }, 'payment provider not configured; cannot settle');
    return;
  }
  let reported: ProviderPayment | null;
  try {
    let ref = p.provider_ref;
    if (!ref) {
      // The intent may exist though its answer was lost: asking again with the same key finds it.
      ref = (
        await provider.authorize({
          paymentId: id,
          orderId: p.order_id,
          amountCents: p.amount_cents,
          currency: p.currency,
          idempotencyKey: authorizeKey(id),
        })
      ).ref;
    }
    reported = capture
      ? await provider.capture(ref, p.amount_cents, `capture-payment-${id}`)
      : await provider.release(ref, `release-payment-${id}`);
  } catch (error) {
    await em.execute(`update payments set settle_attempts = settle_attempts + 1 where id = ?`, [id]);
    if (capture && error instanceof ProviderError && !error.transient) {
      await markCaptureFailed(em, deps, id, error);
      return;
    }
    throw error;
  }
  if (!reported) return;
  if (capture && reported.status !== 'captured') {
    await markCaptureFailed(
      em,
      deps,
      id,
      new ProviderError(`The provider answered ${reported.status} to the capture.`, false, reported.failureCode ?? undefined),
    );
    return;
  }
  const { events } = await em.transactional((tx) => applyReport(tx, id, reported, deps.logger));
  publishEvents(deps.pubSub, events);
}

/** The food was delivered but the money could not be taken: kept for an operator (docs/decisions.md). */
async function markCaptureFailed(em: EntityManager, deps: SettleDeps, id: number, error: ProviderError) {
  deps.logger.error({ paymentId: id, err: error }, 'capture failed: the order was delivered but its payment could not be taken');
  const events = await em.transactional(async (tx) => {
    const row = await lockPayment(tx, id);
    if (!row || row.status !== 'authorized') return [];
    return setStatus(tx, row, 'capture_failed', {
      failure_code: error.code ?? 'capture_failed',
      failure_message: error.message.slice(0, 500),
    });
  });
  publishEvents(deps.pubSub, events);
}

/** One key per payment: however often authorisation is asked, the provider makes one intent. */
export const authorizeKey = (paymentId: number) => `authorize-payment-${paymentId}`;
