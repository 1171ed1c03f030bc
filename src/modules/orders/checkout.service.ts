/**
 * Checkout (spec §4.3 create order): everything priced by the server, everything written in
 * one transaction (order, items, promo redemption, first event, idempotency answer), events
 * published after commit.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError, conflict, FieldErrors, validationFailed } from '../../common/errors';
import { ruleProblems } from '../../common/validation';
import { Context, viewerOf } from '../../context';
import { PromoCode } from '../promos/promo-code.entity';
import { priceAndRedeemPromo } from '../promos/promo.service';
import { meetZone, metZonesLocalTimes } from '../stores/local-time';
import { cartColumns, priceCart } from './cart-pricing';
import { checkoutPlace, CheckoutPlace } from './checkout-query';
import { CheckoutInput } from './checkout.inputs';
import { claimKey, parseKey, requestHash, saveAnswer } from './idempotency';
import { appendEvent, publishEvents } from './order-events';
import { Order, OrderItem, OrderItemExtra } from './order.entity';

/** The first answer to a checkout, kept for Idempotency-Key replays. */
export interface PlacedOrder {
  orderId: number;
  status: string;
  total: number;
}

export async function placeOrder(ctx: Context, input: CheckoutInput, idempotencyKey?: string | null): Promise<PlacedOrder> {
  const viewer = viewerOf(ctx);
  // The body's rules (quantity 1–99, ...) are checked here rather than before the resolver, so
  // that one 422 names them with the problems only the database knows (docs/decisions.md).
  const problems = await ruleProblems(input);
  const key = parseKey(idempotencyKey);
  // Shared by every instance: per customer and per client IP.
  const caller = { userId: viewer.userId, ip: ctx.ip };
  const { orders, promoFailures } = ctx.services.rateLimits;
  const withPromo = Boolean(input.codePromo?.trim());
  if (withPromo) await promoFailures.check(caller);
  await orders.consume(caller);
  const hash = key ? requestHash(input) : '';
  try {
    const { placed, events } = await ctx.em.transactional(async (tx) => {
      // The claim is this transaction's row: a concurrent retry waits here for the first's commit.
      const claim = key ? await claimKey<PlacedOrder>(tx, viewer.userId, key, hash) : null;
      if (claim?.answer) return { placed: claim.answer, events: [] };
      // Checkout saves its answer with its claim; an unanswered row is a claim of the code before that.
      if (claim) throw conflict('A request with this Idempotency-Key is still being processed.');
      const place = await placeOf(ctx, tx, viewer.userId, input, !problems.items);
      const order = await createOrder(tx, viewer.userId, input, place, problems);
      const events = [await appendEvent(tx, order.id, 'status')];
      const placed: PlacedOrder = { orderId: order.id, status: order.status, total: order.total };
      if (key) await saveAnswer(tx, viewer.userId, key, placed);
      return { placed, events };
    });
    publishEvents(ctx.services.pubSub, events);
    return placed;
  } catch (error) {
    // Nothing was written, the claim included: a corrected request can use the key.
    // A refused code counts against guessing (whatever else the cart got wrong).
    if (withPromo && error instanceof AppError && error.details.fields?.codePromo) await promoFailures.penalize(caller);
    throw error;
  }
}

/**
 * The store and the address, read once (what is checked and what the order copies), "open
 * now" by the same rule as the store's is_open at the request's instant: in the zones this
 * process has met, and once more for a store of a zone met for the first time.
 */
async function placeOf(ctx: Context, tx: EntityManager, userId: number, input: CheckoutInput, priced: boolean): Promise<CheckoutPlace> {
  const at = { storeId: input.storeId, addressId: input.addressId, userId };
  // An empty or oversized cart (a rule problem of `items`) is not read: the work stays bounded.
  const cart = cartColumns(priced ? input.items : []);
  const place = await checkoutPlace(tx, at, await metZonesLocalTimes(ctx), cart);
  if (!place.store || place.store.zoneKnown) return place;
  meetZone(place.store.timezone);
  return checkoutPlace(tx, at, await metZonesLocalTimes(ctx), cart);
}

/** `place`: the store and address read (placeOf). `problems`: the body's rule problems, reported with the database's. */
async function createOrder(
  tx: EntityManager,
  userId: number,
  input: CheckoutInput,
  place: CheckoutPlace,
  problems: FieldErrors,
): Promise<Order> {
  const errors: FieldErrors = { ...problems };
  const add = (path: string, message: string) => {
    if (!problems[path]) (errors[path] ??= []).push(message); // a field that breaks a rule is not looked up
  };
  const { store, address } = place;
  const storeOk = store !== null && store.isActive;
  if (!storeOk) add('storeId', 'The selected store is not available.');
  else if (!store.open) add('storeId', 'The store is closed at the moment.');
  if (!address) add('addressId', 'The selected address is not one of your saved addresses.');
  else if (storeOk && !place.inside) add('addressId', 'The address is outside the store’s delivery area.');
  const items = storeOk && !problems.items ? priceCart(place.cart, input.storeId, input.items, errors) : [];
  if (!store || !address || Object.keys(errors).length > 0) throw validationFailed(errors);

  const subtotalCents = items.reduce((sum, item) => sum + item.totalPriceCents, 0);
  const deliveryFeeCents = store.freeDelivery ? 0 : store.deliveryPriceCents;
  let promo: { promo: PromoCode; discountCents: number; redeem: (orderId: number) => Promise<void> } | undefined;
  if (input.codePromo?.trim()) {
    promo = await priceAndRedeemPromo(tx, input.codePromo, { userId, storeId: store.id, subtotalCents });
  }
  const discountCents = promo?.discountCents ?? 0;
  const order = tx.create(Order, {
    user: userId,
    store: store.id,
    address: address.id,
    status: 'pending_acceptance',
    subtotalCents,
    deliveryFeeCents,
    discountCents,
    totalCents: subtotalCents + deliveryFeeCents - discountCents,
    promo: promo?.promo ?? null,
    promoCode: promo?.promo.code ?? null,
    addressLabel: address.label,
    addressLine1: address.line1,
    addressLine2: address.line2,
    addressCity: address.city,
    addressLatitude: address.latitude,
    addressLongitude: address.longitude,
    addressInstructions: address.instructions,
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
