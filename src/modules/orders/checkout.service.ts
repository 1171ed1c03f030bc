/**
 * Checkout (spec §4.3 create order): everything priced by the server, everything written in
 * one transaction (order, items, promo redemption, first event, idempotency answer), events
 * published after commit. Its statements (checkout-query.ts): the rate limits' count with every
 * read (one statement, outside the transaction), then in the transaction the key's claim with the
 * order and everything it holds (its items, extras, first event and that event's notifications,
 * the key's answer). A promo code, a broken rule, a key used before or a zone met first: the
 * transaction's own reads instead, the claim with them (`placeOf`).
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError, conflict, FieldErrors, validationFailed } from '../../common/errors';
import { ruleProblems } from '../../common/validation';
import { Context, viewerOf } from '../../context';
import type { RateLimit } from '../../rate-limits';
import { toAmount } from '../../common/money';
import { PromoCode } from '../promos/promo-code.entity';
import { priceAndRedeemPromo } from '../promos/promo.service';
import { meetZone, metZonesLocalTimes } from '../stores/local-time';
import { cartColumns, priceCart } from './cart-pricing';
import {
  checkoutPlace,
  CheckoutPlace,
  insertClaimedOrder,
  InsertedOrder,
  insertOrder,
  KeyClaim,
  NewOrder,
  PlaceRead,
} from './checkout-query';
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
  const claim = key ? { key, hash: requestHash(input) } : null;
  // Most checkouts (no promo code, no rule broken) are read and checked before the transaction,
  // the order limits counted by the same statement; the transaction then only writes (the key's
  // claim with the order). The others count, then read in the transaction (the claim with it).
  const counting = orders.counting(caller);
  let ready: NewOrder | null = null;
  if (!withPromo && Object.keys(problems).length === 0) ready = await readyOrder(ctx, viewer.userId, input, claim, counting);
  else await orders.consume(caller);
  try {
    const { placed, events } = await ctx.em.transactional(async (tx) => {
      if (ready) {
        const written = await writeReady(tx, ready, claim);
        if ('placed' in written) return written;
        // Not written: another request holds or held the key (after waiting for it: its answer),
        // or the claim waited for one that then failed and is this transaction's now: what the
        // order was computed from is from before that wait: read again, as below.
        if (!written.claimed) {
          const before = await answeredBefore(tx, viewer.userId, claim!);
          if (before) return before;
        }
        const place = await placeOf(ctx, tx, viewer.userId, input, true, null);
        return orderOf(await createOrder(tx, viewer.userId, input, place, problems, claim!.key));
      }
      // The claim is this transaction's row, inserted by its first read: a concurrent retry waits
      // there for the first's commit, then answers the first answer.
      let place = await placeOf(ctx, tx, viewer.userId, input, !problems.items, claim);
      if (claim && !place.claimed) {
        const before = await answeredBefore(tx, viewer.userId, claim);
        if (before) return before;
      }
      // The claim waited for a first request with the key, which then failed (or freed it): what
      // the statement read is from before that wait (up to the lock timeout): read it again.
      if (claim && (!place.claimed || place.waited)) place = await placeOf(ctx, tx, viewer.userId, input, !problems.items, null);
      return orderOf(await createOrder(tx, viewer.userId, input, place, problems, claim?.key ?? null));
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

type Placing = { placed: PlacedOrder; events: OrderEventMessage[] };

const orderOf = (order: { id: number; status: string; totalCents: number; event: OrderEventMessage }): Placing => ({
  placed: { orderId: order.id, status: order.status, total: toAmount(order.totalCents) },
  events: [order.event],
});

/**
 * The first answer of a key another request claimed (this transaction's claim found it taken,
 * after waiting for its holder to end), or null when it turned out free and is this
 * transaction's now (claimKey's retry). 409 for a claim without an answer.
 */
async function answeredBefore(tx: EntityManager, userId: number, claim: KeyClaim): Promise<Placing | null> {
  const before = await claimedBefore<PlacedOrder>(tx, userId, claim.key, claim.hash);
  if (before?.answer) return { placed: before.answer, events: [] };
  // Checkout saves its answer with its claim; an unanswered row is a claim of the code before that.
  if (before) throw conflict('A request with this Idempotency-Key is still being processed.');
  return null; // null: the key was free after all and is this transaction's now (claimKey's retry).
}

/**
 * The checkout's reads before its transaction (one statement on the read pool: the order limits'
 * count, the place, the cart's rows, whether the customer used the key before), then its checks and prices, as
 * `createOrder` makes them: the order to write. Null when the transaction's own way must answer:
 * the key was used before (a replay: its first answer, or 422), the store's zone is met for the
 * first time, or a check failed with a key (a first request with the key may still hold it: the
 * 422 waits for it, as the transaction's claim does). Without a key a failed check is the 422.
 */
async function readyOrder(
  ctx: Context,
  userId: number,
  input: CheckoutInput,
  claim: KeyClaim | null,
  counting: ReturnType<RateLimit['counting']>,
): Promise<NewOrder | null> {
  const at = { storeId: input.storeId, addressId: input.addressId, userId };
  const cart = cartColumns(input.items);
  const place = await checkoutPlace(ctx.em, at, await metZonesLocalTimes(ctx), cart, null, claim?.key ?? null, counting.parts);
  counting.consumed(place.counted ?? []); // 429 first, whatever the reads found
  if (place.used || (place.store && !place.store.zoneKnown)) return null;
  try {
    return pricedOrder(userId, input, place, {});
  } catch (error) {
    if (claim) return null;
    throw error;
  }
}

/**
 * Writes a ready order (`readyOrder`), its first event and that event's notifications in one
 * statement; with a key, its claim too. `{ claimed }` when the order was not written (see
 * `insertClaimedOrder`: true, the claim is this transaction's; false, another request's).
 */
async function writeReady(tx: EntityManager, order: NewOrder, claim: KeyClaim | null): Promise<Placing | { claimed: boolean }> {
  let inserted: InsertedOrder;
  if (claim) {
    const written = await insertClaimedOrder(tx, order, claim, toAmount(order.totalCents));
    if (!written.order) return { claimed: written.claimed };
    inserted = written.order;
  } else {
    inserted = await insertOrder(tx, order, null);
  }
  const event = firstEventWritten({
    orderId: inserted.id,
    eventId: inserted.eventId,
    status: inserted.status,
    at: inserted.eventAt,
    storeId: inserted.storeId,
    driverId: inserted.driverId,
  });
  return orderOf({ id: inserted.id, status: inserted.status, totalCents: order.totalCents, event });
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
 * The order a checkout writes, without its promo code: every check of the store, the address and
 * the cart (422 with `problems`, the body's rule problems, and the database's), the lines priced.
 */
function pricedOrder(userId: number, input: CheckoutInput, place: CheckoutPlace, problems: FieldErrors): NewOrder {
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
  const priced = pricedOrder(userId, input, place, problems);
  let promo: { promo: PromoCode; discountCents: number; redeem: (orderId: number) => Promise<void> } | undefined;
  if (input.codePromo?.trim()) {
    promo = await priceAndRedeemPromo(tx, input.codePromo, { userId, storeId: priced.storeId, subtotalCents: priced.subtotalCents });
  }
  const discountCents = promo?.discountCents ?? 0;
  const totalCents = priced.subtotalCents + priced.deliveryFeeCents - discountCents;
  const order = await insertOrder(
    tx,
    { ...priced, discountCents, totalCents, promoId: promo?.promo.id ?? null, promoCode: promo?.promo.code ?? null },
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
