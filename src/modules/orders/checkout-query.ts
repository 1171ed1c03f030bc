/**
 * Checkout's statements. Its reads, in one statement with the Idempotency-Key's claim: the
 * store (what the order copies and whether it is open now), the customer's address (copied
 * into the order), whether the store delivers there, and what the cart is priced from. Its
 * writes, in one statement: the order, its items and their extras, its first event and the
 * key's answer. Each is built by a pure function (the bench's hand-written twin sends the same
 * texts, scripts/bench-twins/checkout.ts).
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, PreparedValue } from '../../common/entity-manager';
import type { PricingRows } from '../catalog/product-query';
import type { PricedItem } from './cart-pricing';
import { CLAIM_SQL, claimSql } from './idempotency';
import { FIRST_EVENT_SQL, firstEventNotifications } from './order-events';

export interface CheckoutStore {
  id: number;
  isActive: boolean;
  freeDelivery: boolean;
  deliveryPriceCents: number;
  timezone: string;
  /** Open now by `localTimes`; false also when they hold no time for the store's zone (`zoneKnown`). */
  open: boolean;
  /** `localTimes` holds the store's zone: `open` was decided. */
  zoneKnown: boolean;
}

export interface CheckoutAddress {
  id: number;
  label: string;
  line1: string;
  line2: string | null;
  city: string | null;
  latitude: number;
  longitude: number;
  instructions: string | null;
}

export interface CheckoutPlace {
  store: CheckoutStore | null;
  /** The address, when it is one of the customer's. */
  address: CheckoutAddress | null;
  /** The address lies within the store's delivery radius (false without either). */
  inside: boolean;
  /** What the cart is priced from (`cart`'s columns). */
  cart: PricingRows;
}

/** Where checkout reads: the store and address asked for, by whom. */
export interface PlaceAt {
  storeId: number;
  addressId: number;
  userId: number;
}

/**
 * A claim that returned this long after its statement began waited for another holder of the
 * key (which then failed, or the claim would have found the key taken): the statement's reads
 * are from its snapshot, taken before that wait, and are made again (`waited`).
 */
export const CLAIM_WAIT_MS = 100;

/** An Idempotency-Key to claim with the reads (idempotency.ts): its key and the request's hash. */
export interface KeyClaim {
  key: string;
  hash: string;
}

/**
 * The statement of `checkoutPlace`: with `claim`, the key's claim first (a CTE: it waits for a
 * holder of the key to end, as `claimKey` does), `claimed`, whether this transaction took it,
 * and `waited`, whether the claim came `CLAIM_WAIT_MS` or more after the statement began.
 */
export function checkoutPlaceStatement(
  at: PlaceAt,
  localTimes: string,
  cart: { sql: string; params: PreparedValue[] },
  claim: KeyClaim | null,
): { sql: string; params: PreparedValue[] } {
  return {
    sql: `${claim ? `with claim as (${CLAIM_SQL}, clock_timestamp() as at) ` : ''}select
       case when s.id is null then null else json_build_object(
         'id', s.id, 'isActive', s.is_active, 'freeDelivery', s.free_delivery, 'deliveryPriceCents', s.delivery_price_cents,
         'timezone', s.timezone, 'open', coalesce(so.open, false), 'zoneKnown', jsonb_exists(k.times, s.timezone))
       end as store,
       case when a.id is null then null else json_build_object(
         'id', a.id, 'label', a.label, 'line1', a.line1, 'line2', a.line2, 'city', a.city,
         'latitude', a.latitude, 'longitude', a.longitude, 'instructions', a.instructions)
       end as address,
       coalesce(earth_distance(ll_to_earth(a.latitude, a.longitude), ll_to_earth(s.latitude, s.longitude)) <= s.delivery_radius_km * 1000, false)
         as inside,
       ${claim ? 'exists (select from claim)' : 'null::boolean'} as claimed,
       ${claim ? `coalesce((select at - statement_timestamp() >= interval '${CLAIM_WAIT_MS} milliseconds' from claim), false)` : 'false'} as waited,
       statement_timestamp()::text as read_at,
       ${cart.sql}
     from (select ?::int as store_id, ?::int as address_id, ?::int as user_id, ?::jsonb as times) k
     left join stores s on s.id = k.store_id
     left join lateral store_open_at(s.id, k.times) so on true
     left join user_addresses a on a.id = k.address_id and a.user_id = k.user_id`,
    params: [...(claim ? [at.userId, claim.key, claim.hash] : []), ...cart.params, at.storeId, at.addressId, at.userId, localTimes],
  };
}

/**
 * The store, the customer's address, whether the store delivers there and the cart's rows.
 * `localTimes`: wall-clock times by zone (store_open_at's argument, joined so that the prepared
 * statement plans the "open now" rule with the rest: store_is_open is planned on every call); `cart`: the pricing
 * columns of the cart (cart-pricing.ts `cartColumns`); `claim`: the key to claim first
 * (`claimed` answers whether this transaction took it; null without a claim).
 */
export async function checkoutPlace(
  tx: EntityManager,
  at: PlaceAt,
  localTimes: string,
  cart: { sql: string; params: PreparedValue[] },
  claim: KeyClaim | null = null,
): Promise<PlaceRead> {
  const { sql, params } = checkoutPlaceStatement(at, localTimes, cart, claim);
  // Prepared: its planning cost as much as its execution (docs/perf/2026-11-27-checkout.md).
  const [row] = await executePrepared<PlaceRow>(tx, sql, params);
  return readPlace(row);
}

/**
 * What `checkoutPlace` answers: the place, whether the claim was taken (null: none asked) and
 * `waited`, and `readAt`, when the statement began (its reads' instant, by the database's clock).
 */
export type PlaceRead = CheckoutPlace & { claimed: boolean | null; waited: boolean; readAt: string };
type PlaceRow = Omit<CheckoutPlace, 'cart'> & PricingRows & { claimed: boolean | null; waited: boolean; read_at: string };

/** A row of `checkoutPlaceStatement` as `checkoutPlace` answers it. */
export function readPlace(row: PlaceRow): PlaceRead {
  const { store, address, inside, claimed, waited, read_at: readAt, products, groups, values, supplements } = row;
  return { store, address, inside, claimed, waited, readAt, cart: { products, groups, values, supplements } };
}

/** What an order copies and costs, as checkout computed it (the columns of `orders` it sets). */
export interface NewOrder {
  userId: number;
  storeId: number;
  address: CheckoutAddress;
  status: string;
  subtotalCents: number;
  deliveryFeeCents: number;
  discountCents: number;
  totalCents: number;
  promoId: number | null;
  promoCode: string | null;
  items: PricedItem[];
}

/** What `insertOrder` answers: the order and its first event's row. */
export interface InsertedOrder {
  id: number;
  status: string;
  storeId: number;
  driverId: number | null;
  eventId: string;
  eventAt: Date;
}

/** The columns `orders` is inserted with, and their values (`orderValues`), in this order. */
const ORDER_COLUMNS = `user_id, store_id, address_id, status, subtotal_cents, delivery_fee_cents, discount_cents, total_cents,
         promo_id, promo_code, address_label, address_line1, address_line2, address_city, address_latitude, address_longitude,
         address_instructions, last_event_seq`;
const ORDER_VALUES = '?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1';

function orderValues(order: NewOrder): PreparedValue[] {
  const a = order.address;
  return [
    order.userId,
    order.storeId,
    a.id,
    order.status,
    order.subtotalCents,
    order.deliveryFeeCents,
    order.discountCents,
    order.totalCents,
    order.promoId,
    order.promoCode,
    a.label,
    a.line1,
    a.line2,
    a.city,
    a.latitude,
    a.longitude,
    a.instructions,
  ];
}

/**
 * What follows the order's insert (`o`): its items (ids taken from their sequence in the cart's
 * order first, `lines`, so each extra names its item and the items keep the cart's order), their
 * extras (in their item's order: options, then supplements; none without the order: an order
 * not written, `orderAloneStatement`, writes nothing), its first event (`e`) and that event's
 * notifications (order-events.ts `firstEventNotifications`).
 */
function orderParts(
  order: NewOrder,
  notifications: { sql: string; params: PreparedValue[] } | null,
): { sql: string; params: PreparedValue[] } {
  return {
    sql: `
     lines as materialized (
       select nextval('order_items_id_seq')::int as id, l.line from jsonb_array_elements(?::jsonb) l(line)),
     i as (
       insert into order_items (id, order_id, product_id, product_name, quantity, base_price_cents, unit_price_cents, total_price_cents,
         special_instructions)
       select lines.id, o.id, (line->>'productId')::int, line->>'productName', (line->>'quantity')::int, (line->>'basePriceCents')::int,
         (line->>'unitPriceCents')::int, (line->>'totalPriceCents')::int, line->>'specialInstructions'
       from lines, o order by lines.id),
     x as (
       insert into order_item_extras (item_id, kind, id, name, price_cents)
       select lines.id, e->>'kind', (e->>'id')::int, e->>'name', (e->>'priceCents')::int
       from lines, jsonb_array_elements(lines.line->'extras') with ordinality x(e, n) where exists (select from o) order by lines.id, x.n),
     e as (${FIRST_EVENT_SQL})${notifications?.sql ?? ''}`,
    // Each line as priced (cart-pricing.ts PricedItem), read back by the `->>` of its keys.
    params: [JSON.stringify(order.items), ...(notifications?.params ?? [])],
  };
}

/**
 * The statement of `insertOrder`, in the checkout's transaction: the order and `orderParts`.
 * With `answer`, the key's claim (made by this transaction) is answered in the same statement:
 * `{ orderId, status, total }`.
 */
export function insertOrderStatement(
  order: NewOrder,
  answer: { key: string; total: number } | null,
  notifications: { sql: string; params: PreparedValue[] } | null,
): { sql: string; params: PreparedValue[] } {
  const parts = orderParts(order, notifications);
  return {
    sql: `with o as (
       insert into orders (${ORDER_COLUMNS})
       values (${ORDER_VALUES})
       returning id, status, store_id, driver_id, user_id, rejection_reason),${parts.sql}${
         answer
           ? `,
     k as (
       update idempotency_keys set response = jsonb_build_object('orderId', o.id, 'status', o.status, 'total', ?::numeric)
       from o where idempotency_keys.user_id = ?::int and idempotency_keys.key = ?::text returning 1)`
           : ''
       }
     select o.id, o.status, o.store_id, o.driver_id, e.id as event_id, e.created_at, ${answer ? '(select count(*) from k)::int' : 'null::int'} as answered
     from o, e`,
    params: [...orderValues(order), ...parts.params, ...(answer ? [answer.total, order.userId, answer.key] : [])],
  };
}

/**
 * The order written by one statement of its own, no transaction (checkout without a promo code):
 * `orderParts` after the order, and with `claim` the Idempotency-Key's claim first, answered as
 * it is made (the order's id taken from its sequence with it). Written only while the reads it
 * was priced from (`readAt`, checkoutPlaceStatement's `read_at`) are less than CLAIM_WAIT_MS old:
 * with a claim, checked once the key's lock is held (after any wait for another holder of the
 * key). No row: nothing written (the key was taken, or the reads were too old by then).
 */
export function orderAloneStatement(
  order: NewOrder,
  claim: (KeyClaim & { total: number }) | null,
  readAt: string,
  notifications: { sql: string; params: PreparedValue[] } | null,
): { sql: string; params: PreparedValue[] } {
  const fresh = `clock_timestamp() < ?::timestamptz + interval '${CLAIM_WAIT_MS} milliseconds'`;
  const parts = orderParts(order, notifications);
  const answer = `jsonb_build_object('orderId', k.order_id, 'status', ?::text, 'total', ?::numeric)`;
  return {
    sql: `with ${claim ? `claim as (${claimSql(fresh, answer)}),\n     ` : ''}o as (
       insert into orders (${claim ? 'id, ' : ''}${ORDER_COLUMNS})
       select ${claim ? 'claim.order_id, ' : ''}${ORDER_VALUES}${claim ? ' from claim' : ` where ${fresh}`}
       returning id, status, store_id, driver_id, user_id, rejection_reason),${parts.sql}
     select o.id, o.status, o.store_id, o.driver_id, e.id as event_id, e.created_at, ${claim ? '1' : 'null::int'} as answered
     from o, e`,
    params: [
      ...(claim ? [order.status, claim.total, order.userId, claim.key, claim.hash, readAt] : []),
      ...orderValues(order),
      ...(claim ? [] : [readAt]),
      ...parts.params,
    ],
  };
}

/**
 * Writes the order, its items and extras, its first event (seq 1), the event's notifications
 * (order-events.ts `firstEventNotifications`) and, with `answer`, the Idempotency-Key's answer,
 * in one statement: one round trip in the checkout's transaction.
 */
export async function insertOrder(
  tx: EntityManager,
  order: NewOrder,
  answer: { key: string; total: number } | null,
): Promise<InsertedOrder> {
  const { sql, params } = insertOrderStatement(order, answer, firstEventNotifications(order.status));
  const [row] = await executePrepared<InsertedRow>(tx, sql, params);
  return readInsertedOrder(row);
}

/** `orderAloneStatement`, sent on its own (no transaction): the order, or null when nothing was written. */
export async function insertOrderAlone(
  em: EntityManager,
  order: NewOrder,
  claim: (KeyClaim & { total: number }) | null,
  readAt: string,
): Promise<InsertedOrder | null> {
  const { sql, params } = orderAloneStatement(order, claim, readAt, firstEventNotifications(order.status));
  const [row] = await executePrepared<InsertedRow>(em, sql, params);
  return row ? readInsertedOrder(row) : null;
}

interface InsertedRow {
  id: number;
  status: string;
  store_id: number;
  driver_id: number | null;
  event_id: string;
  created_at: Date;
  /** Rows of the key's answer (null: none asked). */
  answered: number | null;
}

/**
 * A row of `insertOrderStatement`. The key's answer must have found this transaction's claim:
 * an order whose key would answer nothing to its replays is refused (the transaction rolls back).
 */
export function readInsertedOrder(row: InsertedRow): InsertedOrder {
  if (row.answered !== null && row.answered !== 1) {
    throw new Error(`The Idempotency-Key's answer updated ${row.answered} rows, not this transaction's claim`);
  }
  return {
    id: row.id,
    status: row.status,
    storeId: row.store_id,
    driverId: row.driver_id,
    eventId: String(row.event_id),
    eventAt: new Date(row.created_at),
  };
}
