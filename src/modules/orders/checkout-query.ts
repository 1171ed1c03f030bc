/**
 * Checkout's reads, in one statement: the store (what the order copies and whether it is open
 * now), the customer's address (copied into the order), whether the store delivers there, and
 * what the cart is priced from.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import type { PricingRows } from '../catalog/product-query';

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

/**
 * The store, the customer's address, whether the store delivers there and the cart's rows.
 * `localTimes`: wall-clock times by zone (store_is_open's argument); `cart`: the pricing
 * columns of the cart (cart-pricing.ts `cartColumns`).
 */
export async function checkoutPlace(
  tx: EntityManager,
  at: { storeId: number; addressId: number; userId: number },
  localTimes: string,
  cart: { sql: string; params: unknown[] },
): Promise<CheckoutPlace> {
  const [row] = await tx.execute<(Omit<CheckoutPlace, 'cart'> & PricingRows)[]>(
    `select
       case when s.id is null then null else json_build_object(
         'id', s.id, 'isActive', s.is_active, 'freeDelivery', s.free_delivery, 'deliveryPriceCents', s.delivery_price_cents,
         'timezone', s.timezone, 'open', coalesce(store_is_open(s.id, k.times), false), 'zoneKnown', jsonb_exists(k.times, s.timezone))
       end as store,
       case when a.id is null then null else json_build_object(
         'id', a.id, 'label', a.label, 'line1', a.line1, 'line2', a.line2, 'city', a.city,
         'latitude', a.latitude, 'longitude', a.longitude, 'instructions', a.instructions)
       end as address,
       coalesce(earth_distance(ll_to_earth(a.latitude, a.longitude), ll_to_earth(s.latitude, s.longitude)) <= s.delivery_radius_km * 1000, false)
         as inside,
       ${cart.sql}
     from (select ?::int as store_id, ?::int as address_id, ?::int as user_id, ?::jsonb as times) k
     left join stores s on s.id = k.store_id
     left join user_addresses a on a.id = k.address_id and a.user_id = k.user_id`,
    [...cart.params, at.storeId, at.addressId, at.userId, localTimes],
  );
  const { store, address, inside, products, groups, values, supplements } = row;
  return { store, address, inside, cart: { products, groups, values, supplements } };
}
