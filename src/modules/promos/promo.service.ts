/**
 * Promo codes at checkout: checked and priced inside the checkout transaction, and redeemed
 * there too, so the total and per-customer limits hold under concurrent checkouts.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../common/errors';
import { PromoCode } from './promo-code.entity';

const FIELD = 'codePromo';

/** The promo code and the discount it gives on `subtotalCents`, or a 422 naming code_promo. */
export async function priceAndRedeemPromo(
  em: EntityManager,
  rawCode: string,
  ctx: { userId: number; storeId: number; subtotalCents: number },
): Promise<{ promo: PromoCode; discountCents: number; redeem: (orderId: number) => Promise<void> }> {
  const code = rawCode.trim().toUpperCase();
  const promo = await em.findOne(PromoCode, { code });
  const now = new Date();
  if (!promo || !promo.isActive) throw invalidField(FIELD, 'The promo code is invalid.');
  if (promo.store && promo.store.id !== ctx.storeId) throw invalidField(FIELD, 'The promo code is not valid for this store.');
  if (promo.startsAt && promo.startsAt > now) throw invalidField(FIELD, 'The promo code is not active yet.');
  if (promo.endsAt && promo.endsAt <= now) throw invalidField(FIELD, 'The promo code has expired.');
  if (ctx.subtotalCents < promo.minSubtotalCents) {
    throw invalidField(FIELD, `The promo code needs a subtotal of at least ${(promo.minSubtotalCents / 100).toFixed(2)}.`);
  }
  if (promo.maxUsesPerCustomer != null) {
    // One customer's concurrent checkouts with the same code queue here.
    await em.execute(`select pg_advisory_xact_lock(?, ?)`, [promo.id, ctx.userId]);
    const [used] = await em.execute<{ n: string }[]>(`select count(*) as n from promo_redemptions where promo_id = ? and user_id = ?`, [
      promo.id,
      ctx.userId,
    ]);
    if (Number(used.n) >= promo.maxUsesPerCustomer) throw invalidField(FIELD, 'You have already used this promo code.');
  }
  const discountCents = discountFor(promo, ctx.subtotalCents);
  return {
    promo,
    discountCents,
    redeem: async (orderId: number) => {
      // The total limit: one conditional increment, safe under any concurrency.
      const taken = await em.execute(
        `update promo_codes set used_count = used_count + 1 where id = ? and (max_uses is null or used_count < max_uses) returning id`,
        [promo.id],
      );
      if (taken.length === 0) throw invalidField(FIELD, 'The promo code has been fully used.');
      await em.execute(`insert into promo_redemptions (promo_id, user_id, order_id) values (?, ?, ?)`, [promo.id, ctx.userId, orderId]);
    },
  };
}

export function discountFor(promo: PromoCode, subtotalCents: number): number {
  const raw =
    promo.discountType === 'percentage' ? Math.round((subtotalCents * (promo.percentOff ?? 0)) / 100) : (promo.amountOffCents ?? 0);
  const capped = promo.maxDiscountCents != null ? Math.min(raw, promo.maxDiscountCents) : raw;
  return Math.max(0, Math.min(capped, subtotalCents));
}
