/** Batch loaders: an order's latest payment (order lists and details), methods by id. */
import { batchLoader, byId, inKeys } from '../../common/batch-loader';
import { toAmount } from '../../common/money';
import { PaymentMethod } from './payment-method.entity';
import { Payment } from './payment.entity';
import type { OrderPaymentType } from './payment.types';

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
