/** Batch loaders: an order's latest payment (order lists and details), a payment's history, methods by id. */
import { batchLoader, byId, groupBy, inKeys } from '../../common/batch-loader';
import { PaymentEvent } from './payment-event.entity';
import { toAmount } from '../../common/money';
import { PaymentMethod } from './payment-method.entity';
import { Payment } from './payment.entity';
import type { OrderPaymentType, PaymentEventType } from './payment.types';

export const paymentMethodById = batchLoader<number, PaymentMethod | null>(async (em, keys) =>
  byId(keys, await em.find(PaymentMethod, { id: inKeys(keys) })),
);

/** One statement for a whole list: the payments joined with their methods. */
export const latestPaymentOfOrder = batchLoader<number, OrderPaymentType | null>(async (em, keys) => {
  const rows = await em.find(Payment, { order: inKeys(keys) }, { orderBy: { id: 'desc' }, populate: ['method'], strategy: 'joined' });
  const latest = new Map<number, Payment>();
  for (const p of rows) if (!latest.has(p.order.id)) latest.set(p.order.id, p);
  return keys.map((k) => {
    const p = latest.get(k);
    return p
      ? {
          id: p.id,
          method: p.method.getEntity(),
          status: p.status,
          amount: toAmount(p.amountCents),
          capturedAmount: toAmount(p.amountCapturedCents),
          refundedAmount: toAmount(p.amountRefundedCents),
          currency: p.currency.toUpperCase(),
        }
      : null;
  });
});

/** The payment's history, oldest first. */
export const eventsOfPayment = batchLoader<number, PaymentEventType[]>(async (em, keys) => {
  const rows = await em.find(PaymentEvent, { payment: inKeys(keys) }, { orderBy: { id: 'asc' } });
  return groupBy(keys, rows, (e) => e.payment.id).map((events) =>
    events.map((e) => ({ status: e.status, amount: toAmount(e.amountCents), at: e.createdAt })),
  );
});
