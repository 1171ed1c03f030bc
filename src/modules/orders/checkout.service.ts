/**
 * Checkout (spec §4.3 create order): everything priced by the server, everything written at
 * once (order, items, promo redemption, first event, idempotency answer), events published after
 * commit. Its statements (checkout-query.ts): the rate limits, then without a promo code every
 * read, then one statement that claims the key and writes the order with everything it holds
 * (its items, extras, first event and that event's notifications, the key's answer), no
 * transaction around them (`placedAlone`); with a promo code, or when that statement wrote
 * nothing, a transaction: the key's claim with every read, the order with everything it holds.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError, conflict, FieldErrors, validationFailed } from '../../common/errors';
import { onOneConnection } from '../../common/entity-manager';
import { ruleProblems } from '../../common/validation';
import { Context, viewerOf } from '../../context';
import { toAmount } from '../../common/money';
import { PromoCode } from '../promos/promo-code.entity';
import { priceAndRedeemPromo } from '../promos/promo.service';
import { meetZone, metZonesLocalTimes } from '../stores/local-time';
import { cartColumns, priceCart } from './cart-pricing';
import { checkoutPlace, CheckoutPlace, insertOrder, insertOrderAlone, KeyClaim, NewOrder, PlaceRead } from './checkout-query';
import { CheckoutInput } from './checkout.inputs';
import { claimedBefore, keyAnswer, parseKey, requestHash } from './idempotency';
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
    // Without a promo code, in one statement; else (or when that wrote nothing) in a transaction.
    const { placed, events } =
      (!withPromo && (await placedAlone(ctx, viewer.userId, input, problems, claim))) ||
      (await ctx.em.transactional(async (tx): Promise<Placement> => {
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
      }));
    publishEvents(ctx.services.pubSub, events);
    return placed;
  } catch (error) {
    // Nothing was written, the claim included: a corrected request can use the key.
    // A refused code counts against guessing (whatever else the cart got wrong).
    if (withPromo && error instanceof AppError && error.details.fields?.codePromo) await promoFailures.penalize(caller);
    throw error;
  }
}

/** A checkout's answer and the events to publish once it is committed. */
interface Placement {
  placed: PlacedOrder;
  events: OrderEventMessage[];
}

/**
 * A checkout without a promo code: every read in one statement of its own, then the order and
 * the key's claim in another (checkout-query.ts `orderAloneStatement`), each committed on its
 * own: no transaction is held across the pricing. The order is written only while its reads are
 * less than CLAIM_WAIT_MS old when the key is claimed (after any wait for another holder of it),
 * as the transaction's way reads again after such a wait. Null: nothing was written, the
 * transaction's way decides (reads too old, the key freed meanwhile, or a refusal with a key:
 * a key used before answers its first answer there, whatever the cart is now).
 */
async function placedAlone(
  ctx: Context,
  userId: number,
  input: CheckoutInput,
  problems: FieldErrors,
  claim: KeyClaim | null,
): Promise<Placement | null> {
  // One read-pool connection for the reads and the write: no wait for the pool between them.
  return onOneConnection(ctx.em, async (em) => {
    const place = await placeOf(ctx, em, userId, input, !problems.items, null);
    let order: NewOrder;
    try {
      order = orderOf(userId, input, place, problems);
    } catch (error) {
      if (claim) return null;
      throw error;
    }
    const total = toAmount(order.totalCents);
    const written = await insertOrderAlone(em, order, claim && { ...claim, total }, place.readAt);
    if (written) {
      const event = firstEventWritten({
        orderId: written.id,
        eventId: written.eventId,
        status: written.status,
        at: written.eventAt,
        storeId: written.storeId,
        driverId: written.driverId,
      });
      return { placed: { orderId: written.id, status: written.status, total }, events: [event] };
    }
    const before = claim && (await keyAnswer<PlacedOrder>(em, userId, claim.key, claim.hash));
    if (before?.answer) return { placed: before.answer, events: [] };
    if (before) throw conflict('A request with this Idempotency-Key is still being processed.');
    return null;
  });
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
 * The order `input` makes at `place` (placeOf's read), checked and priced, without a promo
 * code; 422 with every problem. `problems`: the body's rule problems, reported with the database's.
 */
function orderOf(userId: number, input: CheckoutInput, place: CheckoutPlace, problems: FieldErrors): NewOrder {
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
  return {
    userId,
    storeId: store.id,
    address,
    status: 'pending_acceptance',
    subtotalCents,
    deliveryFeeCents,
    discountCents: 0,
    totalCents: subtotalCents + deliveryFeeCents,
    promoId: null,
    promoCode: null,
    items,
  };
}

/**
 * In the checkout's transaction: `orderOf`, its promo code checked, priced and redeemed, the order
 * written. `key`: the Idempotency-Key this transaction claimed, answered with the order.
 */
async function createOrder(
  tx: EntityManager,
  userId: number,
  input: CheckoutInput,
  place: CheckoutPlace,
  problems: FieldErrors,
  key: string | null,
): Promise<{ id: number; status: string; totalCents: number; event: OrderEventMessage }> {
  let order = orderOf(userId, input, place, problems);
  let promo: { promo: PromoCode; discountCents: number; redeem: (orderId: number) => Promise<void> } | undefined;
  if (input.codePromo?.trim()) {
    promo = await priceAndRedeemPromo(tx, input.codePromo, { userId, storeId: order.storeId, subtotalCents: order.subtotalCents });
    const discountCents = promo.discountCents;
    order = {
      ...order,
      discountCents,
      totalCents: order.subtotalCents + order.deliveryFeeCents - discountCents,
      promoId: promo.promo.id,
      promoCode: promo.promo.code,
    };
  }
  const inserted = await insertOrder(tx, order, key === null ? null : { key, total: toAmount(order.totalCents) });
  await promo?.redeem(inserted.id);
  const event = firstEventWritten({
    orderId: inserted.id,
    eventId: inserted.eventId,
    status: inserted.status,
    at: inserted.eventAt,
    storeId: inserted.storeId,
    driverId: inserted.driverId,
  });
  return { id: inserted.id, status: inserted.status, totalCents: order.totalCents, event };
}
