/**
 * Per-request batch loaders: every nested list of the catalog (menus -> categories ->
 * products -> options) costs one SQL statement per level, whatever the menu size.
 * Customer-facing loaders return active rows only.
 */
import DataLoader from 'dataloader';
import { EntityManager } from '@mikro-orm/postgresql';
import { MenuCategory } from '../modules/catalog/menu-category.entity';
import { Product } from '../modules/catalog/product.entity';
import { ProductOptionGroup, ProductOptionValue, ProductSupplement } from '../modules/catalog/product-option.entity';
import { Offer } from '../modules/offers/offer.entity';
import { OrderEvent } from '../modules/orders/order-event.entity';
import { OrderItem, OrderItemExtra } from '../modules/orders/order.entity';
import { DriverInfo } from '../modules/orders/order.types';
import { activeWindowWhere } from '../common/active-window';
import { OpeningHours } from '../modules/stores/opening-hours.entity';
import { StoreCategory } from '../modules/stores/store-category.entity';
import { Store } from '../modules/stores/store.entity';

type Key = number;

export const TOP_STORES_PER_CATEGORY = 10;

/** Groups rows by a foreign key, in the order the query returned them. */
function groupBy<T>(keys: readonly Key[], rows: T[], keyOf: (row: T) => Key): T[][] {
  const groups = new Map<Key, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((k) => groups.get(k) ?? []);
}

function byId<T extends { id: number }>(keys: readonly Key[], rows: T[]): (T | null)[] {
  const found = new Map(rows.map((r) => [r.id, r]));
  return keys.map((k) => found.get(k) ?? null);
}

export function createLoaders(em: EntityManager) {
  const ids = (keys: readonly Key[]) => ({ $in: [...keys] });
  return {
    store: new DataLoader<Key, Store | null>(async (keys) => byId(keys, await em.find(Store, { id: ids(keys) }))),
    storeCategory: new DataLoader<Key, StoreCategory | null>(async (keys) =>
      byId(keys, await em.find(StoreCategory, { id: ids(keys) })),
    ),
    storeIsOpen: new DataLoader<Key, boolean>(async (keys) => {
      const rows = await em.execute<{ id: number; open: boolean }[]>(
        `select id, store_is_open(id) as open from stores where id in (${keys.map(() => '?').join(',')})`,
        [...keys],
      );
      const open = new Map(rows.map((r) => [r.id, r.open]));
      return keys.map((k) => open.get(k) ?? false);
    }),
    /** The best rated active stores of each category (a lateral join: one statement). */
    topStoresByCategory: new DataLoader<Key, Store[]>(async (keys) => {
      const rows = await em.execute<{ category_id: number; id: number }[]>(
        `select c.id as category_id, s.id from store_categories c
         cross join lateral (select id from stores where category_id = c.id and is_active
                             order by rating desc, rating_count desc, id limit ${TOP_STORES_PER_CATEGORY}) s
         where c.id in (${keys.map(() => '?').join(',')})`,
        [...keys],
      );
      const stores = new Map((await em.find(Store, { id: { $in: rows.map((r) => r.id) } })).map((st) => [st.id, st]));
      return groupBy(keys, rows, (r) => r.category_id).map((group) => group.map((r) => stores.get(r.id)!));
    }),
    activeStoreCountByCategory: new DataLoader<Key, number>(async (keys) => {
      const rows = await em.execute<{ category_id: number; n: string }[]>(
        `select category_id, count(*) as n from stores where is_active and category_id in (${keys.map(() => '?').join(',')}) group by category_id`,
        [...keys],
      );
      const counts = new Map(rows.map((r) => [r.category_id, Number(r.n)]));
      return keys.map((k) => counts.get(k) ?? 0);
    }),
    openingHours: new DataLoader<Key, OpeningHours[]>(async (keys) =>
      groupBy(keys, await em.find(OpeningHours, { store: ids(keys) }, { orderBy: { dayOfWeek: 'asc', opensAt: 'asc' } }), (h) => h.store.id),
    ),
    activeOffers: new DataLoader<Key, Offer[]>(async (keys) =>
      groupBy(keys, await em.find(Offer, { store: ids(keys), ...activeWindowWhere() }, { orderBy: { id: 'asc' } }), (o) => o.store!.id),
    ),
    menuCategories: new DataLoader<Key, MenuCategory[]>(async (keys) =>
      groupBy(keys, await em.find(MenuCategory, { menu: ids(keys) }, { orderBy: { sortOrder: 'asc', id: 'asc' } }), (c) => c.menu!.id),
    ),
    activeProducts: new DataLoader<Key, Product[]>(async (keys) =>
      groupBy(
        keys,
        await em.find(Product, { menuCategory: ids(keys), isActive: true }, { orderBy: { sortOrder: 'asc', id: 'asc' } }),
        (p) => p.menuCategory!.id,
      ),
    ),
    optionGroups: new DataLoader<Key, ProductOptionGroup[]>(async (keys) =>
      groupBy(keys, await em.find(ProductOptionGroup, { product: ids(keys) }, { orderBy: { sortOrder: 'asc', id: 'asc' } }), (g) => g.product.id),
    ),
    optionValues: new DataLoader<Key, ProductOptionValue[]>(async (keys) =>
      groupBy(keys, await em.find(ProductOptionValue, { group: ids(keys) }, { orderBy: { sortOrder: 'asc', id: 'asc' } }), (v) => v.group.id),
    ),
    orderItems: new DataLoader<Key, OrderItem[]>(async (keys) =>
      groupBy(keys, await em.find(OrderItem, { order: ids(keys) }, { orderBy: { id: 'asc' } }), (i) => i.order.id),
    ),
    orderItemExtras: new DataLoader<Key, OrderItemExtra[]>(async (keys) =>
      groupBy(keys, await em.find(OrderItemExtra, { item: ids(keys) }, { orderBy: { rowId: 'asc' } }), (e) => e.item.id),
    ),
    statusEvents: new DataLoader<Key, OrderEvent[]>(async (keys) =>
      groupBy(keys, await em.find(OrderEvent, { order: ids(keys), type: 'status' }, { orderBy: { seq: 'asc' } }), (e) => e.order.id),
    ),
    driverInfo: new DataLoader<Key, DriverInfo | null>(async (keys) => {
      const rows = await em.execute<{ id: number; first_name: string; last_name: string; phone_number: string; latitude: number | null; longitude: number | null }[]>(
        `select d.id, u.first_name, u.last_name, u.phone_number, d.latitude, d.longitude
         from drivers d join users u on u.id = d.user_id where d.id in (${keys.map(() => '?').join(',')})`,
        [...keys],
      );
      const found = new Map(rows.map((r) => [r.id, { id: r.id, name: `${r.first_name} ${r.last_name}`, phone: r.phone_number, latitude: r.latitude, longitude: r.longitude }]));
      return keys.map((k) => found.get(k) ?? null);
    }),
    supplements: new DataLoader<Key, ProductSupplement[]>(async (keys) =>
      groupBy(keys, await em.find(ProductSupplement, { product: ids(keys) }, { orderBy: { sortOrder: 'asc', id: 'asc' } }), (s) => s.product.id),
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
