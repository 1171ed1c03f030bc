/**
 * Checkout (spec §4.3 create order): everything priced by the server, everything written in
 * one transaction (order, items, promo redemption, first event, idempotency answer), events
 * published after commit.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { FieldErrors, validationFailed } from '../../common/errors';
import { ruleProblems } from '../../common/validation';
import { Context } from '../../context';
import { requireViewer } from '../auth/token.service';
import { PromoCode } from '../promos/promo-code.entity';
import { priceAndRedeemPromo } from '../promos/promo.service';
import { Store } from '../stores/store.entity';
import { storeLocalTimes } from '../stores/local-time';
import { priceCart } from './cart-pricing';
import { CheckoutInput } from './checkout.inputs';
import { claimKey, freeKey, requestHash, saveAnswer } from './idempotency';
import { appendEvent, publishEvents } from './order-events';
import { Order, OrderItem, OrderItemExtra } from './order.entity';

/** The first answer to a checkout, kept for Idempotency-Key replays. */
export interface PlacedOrder {
  orderId: number;
  status: string;
  total: number;
}

export async function placeOrder(ctx: Context, input: CheckoutInput, idempotencyKey?: string | null): Promise<PlacedOrder> {
  const viewer = requireViewer(ctx.viewer, ctx.authError);
  // The body's rules (quantity 1–99, ...) are checked here rather than before the resolver, so
  // that one 422 names them with the problems only the database knows (docs/decisions.md).
  const problems = await ruleProblems(input);
  const key = idempotencyKey?.trim() || null;
  if (key) {
    const replay = await claimKey<PlacedOrder>(ctx.em, viewer.userId, key, requestHash(input));
    if (replay) return replay;
  }
  try {
    // Read before the transaction (the embedded database serves one connection at a time).
    const localTimes = await storeLocalTimes(ctx);
    const { placed, events } = await ctx.em.transactional(async (tx) => {
      const order = await createOrder(tx, viewer.userId, input, localTimes, problems);
      const events = [await appendEvent(tx, order.id, 'status')];
      const placed: PlacedOrder = { orderId: order.id, status: order.status, total: order.total };
      if (key) await saveAnswer(tx, viewer.userId, key, placed);
      return { placed, events };
    });
    publishEvents(ctx.services.pubSub, events);
    return placed;
  } catch (error) {
    // Nothing was written: free the key so that a corrected request can use it.
    if (key) await freeKey(ctx.em, viewer.userId, key);
    throw error;
  }
}

/**
 * `localTimes`: the request's wall-clock times by zone, for the same "open now" rule as the
 * store's is_open. `problems`: the body's rule problems, reported with the database's.
 */
async function createOrder(tx: EntityManager, userId: number, input: CheckoutInput, localTimes: string, problems: FieldErrors): Promise<Order> {
  const errors: FieldErrors = { ...problems };
  const add = (path: string, message: string) => {
    if (!problems[path]) (errors[path] ??= []).push(message); // a field that breaks a rule is not looked up
  };
  const [place] = await tx.execute<{ store_ok: boolean; open: boolean; address_ok: boolean; inside: boolean }[]>(
    `select s.id is not null and s.is_active as store_ok,
            coalesce(store_is_open(s.id, ?::jsonb), false) as open,
            a.id is not null as address_ok,
            coalesce(earth_distance(ll_to_earth(a.latitude, a.longitude), ll_to_earth(s.latitude, s.longitude)) <= s.delivery_radius_km * 1000, false) as inside
     from (select 1) one
     left join stores s on s.id = ?
     left join user_addresses a on a.id = ? and a.user_id = ?`,
    [localTimes, input.storeId, input.addressId, userId],
  );
  if (!place.store_ok) add('storeId', 'The selected store is not available.');
  else if (!place.open) add('storeId', 'The store is closed at the moment.');
  if (!place.address_ok) add('addressId', 'The selected address is not one of your saved addresses.');
  else if (place.store_ok && !place.inside) add('addressId', 'The address is outside the store’s delivery area.');
  // An empty or oversized cart (a rule problem of `items`) is not priced: the work stays bounded.
  const items = place.store_ok && !problems.items ? await priceCart(tx, input.storeId, input.items, errors) : [];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const store = await tx.findOneOrFail(Store, { id: input.storeId });
  const address = await tx.execute<{ label: string; line1: string; line2: string | null; city: string | null; latitude: number; longitude: number; instructions: string | null }[]>(
    `select label, line1, line2, city, latitude, longitude, instructions from user_addresses where id = ?`,
    [input.addressId],
  );
  const subtotalCents = items.reduce((sum, item) => sum + item.totalPriceCents, 0);
  const deliveryFeeCents = store.freeDelivery ? 0 : store.deliveryPriceCents;
  let promo: { promo: PromoCode; discountCents: number; redeem: (orderId: number) => Promise<void> } | undefined;
  if (input.codePromo?.trim()) {
    promo = await priceAndRedeemPromo(tx, input.codePromo, { userId, storeId: store.id, subtotalCents });
  }
  const discountCents = promo?.discountCents ?? 0;
  const a = address[0];
  const order = tx.create(Order, {
    user: userId,
    store,
    address: input.addressId,
    status: 'pending_acceptance',
    subtotalCents,
    deliveryFeeCents,
    discountCents,
    totalCents: subtotalCents + deliveryFeeCents - discountCents,
    promo: promo?.promo ?? null,
    promoCode: promo?.promo.code ?? null,
    addressLabel: a.label,
    addressLine1: a.line1,
    addressLine2: a.line2,
    addressCity: a.city,
    addressLatitude: a.latitude,
    addressLongitude: a.longitude,
    addressInstructions: a.instructions,
  });
  for (const item of items) {
    const row = tx.create(OrderItem, {
      order,
      productId: item.productId,
      productName: item.productName,
      quantity: item.quantity,
      basePriceCents: item.basePriceCents,
      unitPriceCents: item.unitPriceCents,
      totalPriceCents: item.totalPriceCents,
      specialInstructions: item.specialInstructions,
    });
    for (const extra of item.extras) tx.create(OrderItemExtra, { item: row, ...extra });
  }
  await tx.flush();
  await promo?.redeem(order.id);
  return order;
}
