/**
 * Batch loaders over store rows: the customer-facing ones answer active stores only, and
 * "top 10 per category" and "is open" are rules of this module.
 */
import { batchLoader, byId, groupBy } from '../../common/batch-loader';
import { readViews, View, viewObject } from '../../common/row-views';
import { EntityManager } from '@mikro-orm/postgresql';
import { Context } from '../../context';
import { localTimesOf, meetZone, metZonesLocalTimes, requestInstant } from './local-time';
import { OpeningHours } from './opening-hours.entity';
import { StoreCategory } from './store-category.entity';
import { Store } from './store.entity';

export const TOP_STORES_PER_CATEGORY = 10;

// The loaders answer read-only views (src/common/row-views.ts): they feed answers, never writes.
export const storeById = batchLoader<number, View<Store> | null>(async (em, keys) =>
  byId(keys, await readViews(em, Store, 's', 'from stores s where s.id in (?)', [[...keys]])),
);

export const storeCategoryById = batchLoader<number, View<StoreCategory> | null>(async (em, keys) =>
  byId(keys, await readViews(em, StoreCategory, 'c', 'from store_categories c where c.id in (?)', [[...keys]])),
);

/** storeCategoryById's row of the store aliased `store`, as a JSON column (src/common/row-views.ts `viewObject`). */
export const storeCategoryJson = (em: EntityManager, store: string) =>
  `(select ${viewObject(em, StoreCategory, 'c')} from store_categories c where c.id = ${store}.category_id)`;

/**
 * Open at the request's clock, in each store's zone (src/modules/stores/local-time.ts). The
 * stores in hand name their zones, so only those are turned into wall-clock times: no walk of
 * every zone in use (one statement fewer per answer that shows `is_open`).
 */
export const storeIsOpen = batchLoader<Pick<Store, 'id' | 'timezone'>, boolean, Context>(async (em, keys, ctx) => {
  const localTimes = localTimesOf(new Set(keys.map((k) => k.timezone)), await requestInstant(ctx));
  const rows = await em.execute<{ id: number; open: boolean }[]>(
    `select id, store_is_open(id, ?::jsonb) as open from stores where id in (?)`,
    [localTimes, [...new Set(keys.map((k) => k.id))]],
  );
  const open = new Map(rows.map((r) => [r.id, r.open]));
  return keys.map((k) => open.get(k.id) ?? false);
});

/**
 * A store read by a statement that reads more than the store (details, catalog) decides "open
 * now" in that statement: `openNowSql` is its column (null when the store's zone is not among
 * the zones met, its two parameters from `openNowParams`), and `primeIsOpen` hands its value to
 * storeIsOpen, so the `isOpen` field reads no more. The rule stays store_is_open's.
 */
export const openNowSql = (alias: string) =>
  `case when jsonb_exists(?::jsonb, ${alias}.timezone) then store_is_open(${alias}.id, ?::jsonb) end`;

export async function openNowParams(ctx: Context): Promise<[string, string]> {
  const localTimes = await metZonesLocalTimes(ctx);
  return [localTimes, localTimes];
}

export function primeIsOpen(ctx: Context, store: View<Store>, open: boolean | null): void {
  if (open === null)
    meetZone(store.timezone); // storeIsOpen decides this time
  else storeIsOpen(ctx).prime(store, open);
}

/**
 * Hands the card loaders (category, open now) what a list's own statement already read
 * (nearby: findStores' `cards`, at the request's instant): its field resolvers then send no
 * statement. Stores without a card are left to the loaders.
 */
export function primeStoreCards(ctx: Context, cards: Map<View<Store>, { category: View<StoreCategory> | null; open: boolean }>): void {
  for (const [store, card] of cards) {
    primeIsOpen(ctx, store, card.open);
    if (card.category) storeCategoryById(ctx).prime(card.category.id, card.category);
  }
}

/** The best rated active stores of each category (a lateral join: one statement). */
export const topStoresByCategory = batchLoader<number, View<Store>[]>(async (em, keys) => {
  const rows = await em.execute<{ category_id: number; id: number }[]>(
    `select c.id as category_id, s.id from store_categories c
     cross join lateral (select id from stores where category_id = c.id and is_active
                         order by rating desc, rating_count desc, id limit ?) s
     where c.id in (?)`,
    [TOP_STORES_PER_CATEGORY, [...keys]],
  );
  const ids = rows.map((r) => r.id);
  const found = ids.length === 0 ? [] : await readViews(em, Store, 's', 'from stores s where s.id in (?)', [ids]);
  const stores = new Map(found.map((st) => [st.id, st]));
  return groupBy(keys, rows, (r) => r.category_id).map((group) => group.map((r) => stores.get(r.id)!));
});

export const activeStoreCountByCategory = batchLoader<number, number>(async (em, keys) => {
  const rows = await em.execute<{ category_id: number; n: string }[]>(
    `select category_id, count(*) as n from stores where is_active and category_id in (?) group by category_id`,
    [[...keys]],
  );
  const counts = new Map(rows.map((r) => [r.category_id, Number(r.n)]));
  return keys.map((k) => counts.get(k) ?? 0);
});

export const openingHoursOfStore = batchLoader<number, View<OpeningHours>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(
      em,
      OpeningHours,
      'h',
      'from store_opening_hours h where h.store_id in (?) order by h.day_of_week asc, h.opens_at asc',
      [[...keys]],
    ),
    (h) => h.store.id,
  ),
);

/** openingHoursOfStore's rows of the store aliased `store`, in its order, as a JSON array (null: none). */
export const openingHoursJson = (em: EntityManager, store: string) =>
  `(select json_agg(${viewObject(em, OpeningHours, 'h')} order by h.day_of_week asc, h.opens_at asc) from store_opening_hours h where h.store_id = ${store}.id)`;
