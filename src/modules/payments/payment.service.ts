/**
 * Spec §4.4: the payment methods on offer, and starting the payment of an order. A card
 * payment gets one PaymentIntent (authorised now, captured at delivery); cash waits for the
 * delivery. The customer's own order only; Idempotency-Key as checkout honours it.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError, invalidField, notFound } from '../../common/errors';
import { toAmount } from '../../common/money';
import { PaymentProvider, ProviderError } from '../../common/payment-provider';
import { Context, viewerOf } from '../../context';
import { claimKey, freeKey, parseKey, requestHash, saveAnswer } from '../orders/idempotency';
import { publishEvents } from '../orders/order-events';
import { authorizeKey, settlePayments } from './payment-lifecycle';
import { applyReport, lockPayment, paymentsOfOrder, PaymentRow, setStatus } from './payment-ledger';
import { PaymentMethod } from './payment-method.entity';
import { LIVE_STATUSES } from './payment-status';

/** Seconds a client waits before retrying a start the provider did not answer. */
const PROVIDER_RETRY_AFTER_SECONDS = 5;

/** Active methods whose provider is configured, in display order. */
export async function listPaymentMethods(ctx: Context): Promise<PaymentMethod[]> {
  const methods = await ctx.em.find(PaymentMethod, { isActive: true }, { orderBy: { sortOrder: 'asc', id: 'asc' } });
  return methods.filter((m) => ctx.services.payments.has(m.provider));
}

/** What the app needs next (the service's answer; PaymentStartType is its GraphQL face). */
export interface PaymentStart {
  paymentId: number;
  orderId: number;
  methodId: number;
  status: string;
  amount: number;
  currency: string;
  /** `confirm_card`: confirm with the provider's SDK (clientSecret, publishableKey); `none`: nothing more. */
  nextAction: 'confirm_card' | 'none';
  requiresAction: boolean;
  clientSecret: string | null;
  publishableKey: string | null;
}

export async function startPayment(ctx: Context, orderId: number, methodId: number, idempotencyKey?: string | null): Promise<PaymentStart> {
  const viewer = viewerOf(ctx);
  const key = parseKey(idempotencyKey);
  const claim = key ? { userId: viewer.userId, key, hash: requestHash({ operation: 'startPayment', orderId, methodId }) } : null;
  try {
    const { answer, replayed } = await start(ctx, viewer.userId, orderId, methodId, claim);
    if (claim && !replayed) await saveAnswer(ctx.em, claim.userId, claim.key, answer);
    return answer;
  } catch (error) {
    // Failed after its transaction committed (the provider's refusal): a corrected request may use the key.
    if (claim) await freeKey(ctx.em, claim.userId, claim.key);
    throw error;
  }
}

type Claim = { userId: number; key: string; hash: string } | null;

async function start(
  ctx: Context,
  userId: number,
  orderId: number,
  methodId: number,
  claim: Claim,
): Promise<{ answer: PaymentStart; replayed: boolean }> {
  const method = await ctx.em.findOne(PaymentMethod, { id: methodId });
  const started = await ctx.em.transactional(
    async (tx): Promise<{ replay: PaymentStart } | { payment: PaymentRow; replaced: number[] }> => {
      // The key is claimed in this transaction (idempotency.ts): a concurrent retry waits for its commit.
      const held = claim && (await claimKey<PaymentStart>(tx, claim.userId, claim.key, claim.hash));
      if (held && held.answer) return { replay: held.answer };
      // A claim committed without its answer (its holder was still asking the provider, or died):
      // starting again is safe, the order's live payment and its provider key are reused below.
      // The order row is locked: two starts for one order, or a start racing accept or reject, queue here.
      const [order] = await tx.execute<{ status: string; total_cents: number }[]>(
        `select status, total_cents from orders where id = ? and user_id = ? for update`,
        [orderId, userId],
      );
      if (!order) throw notFound('Order', orderId);
      const provider = method?.isActive ? ctx.services.payments.get(method.provider) : undefined;
      if (!method || !provider) throw invalidField('paymentMethodId', 'The selected payment method is not available.');
      if (order.status !== 'pending_acceptance') {
        throw invalidField('orderId', `The order is ${order.status} and cannot be paid any more.`);
      }
      const [live] = (await paymentsOfOrder(tx, orderId)).filter((p) => LIVE_STATUSES.includes(p.status));
      if (live?.status === 'authorized') throw invalidField('orderId', 'The order is already paid.');
      if (live && live.method_code === method.code) return { payment: live, replaced: [] };
      // Another method replaces the waiting one; its card intent (if any) is dropped after commit.
      const replaced = await replaceWaiting(tx, orderId);
      const [row] = await tx.execute<{ id: number }[]>(
        `insert into payments (order_id, method_id, provider, status, amount_cents, currency) values (?, ?, ?, ?, ?, ?) returning id`,
        [orderId, method.id, method.provider, 'pending', order.total_cents, ctx.services.config.payments.currency],
      );
      return { payment: (await lockPayment(tx, row.id))!, replaced };
    },
  );
  if ('replay' in started) return { answer: started.replay, replayed: true };
  const { payment, replaced } = started;
  await settlePayments(ctx.em, { ...ctx.services, logger: ctx.logger }, replaced);
  const provider = ctx.services.payments.get(payment.provider)!;
  const current = payment.provider_ref || payment.provider === 'cash' ? payment : await authorize(ctx, provider, payment);
  return { answer: answer(current, method!.id, provider), replayed: false };
}

/** Waiting attempts (and declined cards whose intent is still open) give way to a new one; none of it is news. */
async function replaceWaiting(tx: EntityManager, orderId: number): Promise<number[]> {
  const settle: number[] = [];
  for (const p of await paymentsOfOrder(tx, orderId)) {
    if (!['pending', 'requires_action', 'failed'].includes(p.status) || p.release_requested_at) continue;
    const status = p.status === 'failed' ? 'failed' : 'cancelled';
    if (p.provider === 'cash') {
      await setStatus(tx, p, status);
      continue;
    }
    await setStatus(tx, p, status, { release_requested_at: new Date() });
    settle.push(p.id);
  }
  return settle;
}

/** Asks the provider for the authorisation (one intent per payment, whatever the retries). */
async function authorize(ctx: Context, provider: PaymentProvider, payment: PaymentRow): Promise<PaymentRow> {
  let reported;
  try {
    reported = await provider.authorize({
      paymentId: payment.id,
      orderId: payment.order_id,
      amountCents: payment.amount_cents,
      currency: payment.currency,
      idempotencyKey: authorizeKey(payment.id),
    });
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    ctx.logger.warn({ err: error, paymentId: payment.id }, 'payment authorisation request failed');
    // 503: nothing was decided; the client retries (with its Idempotency-Key) after Retry-After.
    if (error.transient) {
      throw new AppError('UNAVAILABLE', 'The payment provider did not answer. Please try again.', {
        retryAfter: PROVIDER_RETRY_AFTER_SECONDS,
      });
    }
    throw invalidField('paymentMethodId', 'The payment provider refused this payment; please choose another method.');
  }
  const { events, row } = await ctx.em.transactional((tx) => applyReport(tx, payment.id, reported, ctx.logger));
  publishEvents(ctx.services.pubSub, events);
  // Read again: the report may have been refused, or a webhook may have moved it meanwhile.
  const [fresh] = await ctx.em.execute<PaymentRow[]>(`select status, provider_ref, client_secret from payments where id = ?`, [payment.id]);
  return { ...(row ?? payment), ...fresh };
}

function answer(payment: PaymentRow, methodId: number, provider: PaymentProvider): PaymentStart {
  const card = payment.method_kind === 'card';
  const confirm = card && ['pending', 'requires_action', 'failed'].includes(payment.status);
  return {
    paymentId: payment.id,
    orderId: payment.order_id,
    methodId,
    status: payment.status,
    amount: toAmount(payment.amount_cents),
    currency: payment.currency.toUpperCase(),
    nextAction: confirm ? 'confirm_card' : 'none',
    requiresAction: payment.status === 'requires_action',
    clientSecret: confirm ? payment.client_secret : null,
    publishableKey: card ? (provider.publicConfig.publishableKey ?? null) : null,
  };
}
