/**
 * Batch loaders over store rows: the customer-facing ones answer active stores only, and
 * "top 10 per category" and "is open" are rules of this module.
 */
import { batchLoader, byId, groupBy, inKeys } from '../../common/batch-loader';
import { Context } from '../../context';
import { storeLocalTimes } from './local-time';
import { OpeningHours } from './opening-hours.entity';
import { StoreCategory } from './store-category.entity';
import { Store } from './store.entity';

export const TOP_STORES_PER_CATEGORY = 10;

export const storeById = batchLoader<number, Store | null>(async (em, keys) => byId(keys, await em.find(Store, { id: inKeys(keys) })));

export const storeCategoryById = batchLoader<number, StoreCategory | null>(async (em, keys) =>
  byId(keys, await em.find(StoreCategory, { id: inKeys(keys) })),
);

/** Open at the request's clock, in each store's zone (src/modules/stores/local-time.ts). */
export const storeIsOpen = batchLoader<number, boolean, Context>(async (em, keys, ctx) => {
  const rows = await em.execute<{ id: number; open: boolean }[]>(
    `select id, store_is_open(id, ?::jsonb) as open from stores where id in (?)`,
    [await storeLocalTimes(ctx), [...keys]],
  );
  const open = new Map(rows.map((r) => [r.id, r.open]));
  return keys.map((k) => open.get(k) ?? false);
});

/** The best rated active stores of each category (a lateral join: one statement). */
export const topStoresByCategory = batchLoader<number, Store[]>(async (em, keys) => {
  const rows = await em.execute<{ category_id: number; id: number }[]>(
    `select c.id as category_id, s.id from store_categories c
     cross join lateral (select id from stores where category_id = c.id and is_active
                         order by rating desc, rating_count desc, id limit ?) s
     where c.id in (?)`,
    [TOP_STORES_PER_CATEGORY, [...keys]],
  );
  const stores = new Map((await em.find(Store, { id: { $in: rows.map((r) => r.id) } })).map((st) => [st.id, st]));
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

export const openingHoursOfStore = batchLoader<number, OpeningHours[]>(async (em, keys) =>
  groupBy(keys, await em.find(OpeningHours, { store: inKeys(keys) }, { orderBy: { dayOfWeek: 'asc', opensAt: 'asc' } }), (h) => h.store.id),
);
