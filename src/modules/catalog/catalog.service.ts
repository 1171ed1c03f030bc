/** A store's catalog for customers (spec §2.7): active menus; nested levels come from loaders. */
import { Context } from '../../context';
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

export async function catalog(ctx: Context, storeId: number): Promise<StoreCatalog> {
  const store = await getActiveStore(ctx, storeId);
  return {
    store,
    menus: await ctx.em.find(Menu, { store, isActive: true }, { orderBy: { sortOrder: 'asc', id: 'asc' } }),
    offers: await activeOffersForStore(ctx, store.id),
  };
}

/** The active products of an active store, in menu order. */
export async function storeProducts(ctx: Context, storeId: number): Promise<Product[]> {
  const store = await getActiveStore(ctx, storeId);
  return ctx.em.find(
    Product,
    { store, isActive: true, menuCategory: { menu: { isActive: true } } },
    { orderBy: { menuCategory: { menu: { sortOrder: 'asc', id: 'asc' }, sortOrder: 'asc', id: 'asc' }, sortOrder: 'asc', id: 'asc' } },
  );
}
