/**
 * Checkout (spec §4.3 create order): everything priced by the server, everything written in
 * one transaction (order, items, promo redemption, first event, idempotency answer), events
 * published after commit. Its statements (checkout-query.ts): the rate limits, then in the
 * transaction the key's claim with every read, the order with everything it holds (its items,
 * extras, first event and that event's notifications, the key's answer).
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError, conflict, FieldErrors, validationFailed } from '../../common/errors';
import { ruleProblems } from '../../common/validation';
import { Context, viewerOf } from '../../context';
import { toAmount } from '../../common/money';
import { PromoCode } from '../promos/promo-code.entity';
import { priceAndRedeemPromo } from '../promos/promo.service';
import { meetZone, metZonesLocalTimes } from '../stores/local-time';
import { cartColumns, priceCart } from './cart-pricing';
import { checkoutPlace, CheckoutPlace, insertOrder, KeyClaim, PlaceRead } from './checkout-query';
import { CheckoutInput } from './checkout.inputs';
import { claimedBefore, parseKey, requestHash } from './idempotency';
import { firstEventWritten, OrderEventMessage, publishEvents } from './order-events';

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
  const claim = key ? { key, hash: requestHash(input) } : null;
  try {
    const { placed, events } = await ctx.em.transactional(async (tx) => {
      // The claim is this transaction's row, inserted by its first read: a concurrent retry waits
      // there for the first's commit, then answers the first answer.
      let place = await placeOf(ctx, tx, viewer.userId, input, !problems.items, claim);
      if (claim && !place.claimed) {
        const before = await claimedBefore<PlacedOrder>(tx, viewer.userId, claim.key, claim.hash);
        if (before?.answer) return { placed: before.answer, events: [] };
        // Checkout saves its answer with its claim; an unanswered row is a claim of the code before that.
        if (before) throw conflict('A request with this Idempotency-Key is still being processed.');
        // null: the key was free after all and is this transaction's now (claimKey's retry).
      }
      // The claim waited for a first request with the key, which then failed (or freed it): what
      // the statement read is from before that wait (up to the lock timeout): read it again.
      if (claim && (!place.claimed || place.waited)) place = await placeOf(ctx, tx, viewer.userId, input, !problems.items, null);
      const order = await createOrder(tx, viewer.userId, input, place, problems, claim?.key ?? null);
      const placed: PlacedOrder = { orderId: order.id, status: order.status, total: toAmount(order.totalCents) };
      return { placed, events: [order.event] };
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
 * process has met, and once more for a store of a zone met for the first time. `claim`: the
 * Idempotency-Key, claimed by the first read (`claimed`).
 */
async function placeOf(
  ctx: Context,
  tx: EntityManager,
  userId: number,
  input: CheckoutInput,
  priced: boolean,
  claim: KeyClaim | null,
): Promise<PlaceRead> {
  const at = { storeId: input.storeId, addressId: input.addressId, userId };
  // An empty or oversized cart (a rule problem of `items`) is not read: the work stays bounded.
  const cart = cartColumns(priced ? input.items : []);
  const place = await checkoutPlace(tx, at, await metZonesLocalTimes(ctx), cart, claim);
  if (!place.store || place.store.zoneKnown) return place;
  meetZone(place.store.timezone);
  // The claim is already made (or found taken): read again without it.
  return { ...(await checkoutPlace(tx, at, await metZonesLocalTimes(ctx), cart)), claimed: place.claimed, waited: place.waited };
}

/**
 * `place`: the store and address read (placeOf). `problems`: the body's rule problems, reported
 * with the database's. `key`: the Idempotency-Key this transaction claimed, answered with the order.
 */
async function createOrder(
  tx: EntityManager,
  userId: number,
  input: CheckoutInput,
  place: CheckoutPlace,
  problems: FieldErrors,
  key: string | null,
): Promise<{ id: number; status: string; totalCents: number; event: OrderEventMessage }> {
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
  const totalCents = subtotalCents + deliveryFeeCents - discountCents;
  const order = await insertOrder(
    tx,
    {
      userId,
      storeId: store.id,
      address,
      status: 'pending_acceptance',
      subtotalCents,
      deliveryFeeCents,
      discountCents,
      totalCents,
      promoId: promo?.promo.id ?? null,
      promoCode: promo?.promo.code ?? null,
      items,
    },
    key === null ? null : { key, total: toAmount(totalCents) },
  );
  await promo?.redeem(order.id);
  const event = firstEventWritten({
    orderId: order.id,
    eventId: order.eventId,
    status: order.status,
    at: order.eventAt,
    storeId: order.storeId,
    driverId: order.driverId,
  });
  return { id: order.id, status: order.status, totalCents, event };
}
