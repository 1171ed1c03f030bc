/** A store's catalog for customers (spec §2.7): active menus; nested levels come from loaders. */
import { EntityManager } from '@mikro-orm/postgresql';
import { Offer } from '../offers/offer.entity';
import { activeOffersForStore } from '../offers/offer.service';
import { getActiveStore } from '../stores/store.service';
import { Store } from '../stores/store.entity';
import { Menu } from './menu.entity';
import { Product } from './product.entity';

/** A store with its active menus and the offers that apply to it. */
export interface StoreCatalog {
  store: Store;
  menus: Menu[];
  offers: Offer[];
}

export async function catalog(em: EntityManager, storeId: number): Promise<StoreCatalog> {
  const store = await getActiveStore(em, storeId);
  return {
    store,
    menus: await em.find(Menu, { store, isActive: true }, { orderBy: { sortOrder: 'asc', id: 'asc' } }),
    offers: await activeOffersForStore(em, store.id),
  };
}

/** The active products of an active store, in menu order. */
export async function storeProducts(em: EntityManager, storeId: number): Promise<Product[]> {
  const store = await getActiveStore(em, storeId);
  return em.find(
    Product,
    { store, isActive: true, menuCategory: { menu: { isActive: true } } },
    { orderBy: { menuCategory: { menu: { sortOrder: 'asc', id: 'asc' }, sortOrder: 'asc', id: 'asc' }, sortOrder: 'asc', id: 'asc' } },
  );
}

/**
 * SQL for "a customer may see this product" (`p` is the products alias): active, and in a
 * category of an active menu. The store's own activity is checked by the caller.
 */
export const VISIBLE_PRODUCT_SQL = `p.is_active and exists (
  select 1 from menu_categories mc join menus m on m.id = mc.menu_id
  where mc.id = p.menu_category_id and m.is_active)`;
