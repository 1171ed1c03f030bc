/**
 * A store's catalog for customers (spec §2.7): active menus; nested levels come from loaders.
 * Everything here is answered, never written: read-only views (src/common/row-views.ts).
 */
import { readViews, View } from '../../common/row-views';
import { Context } from '../../context';
import { Offer } from '../offers/offer.entity';
import { activeOffersForStore } from '../offers/offer.service';
import { getActiveStore } from '../stores/store.service';
import { Store } from '../stores/store.entity';
import { Menu } from './menu.entity';
import { Product } from './product.entity';

/** A store with its active menus and the offers that apply to it. */
export interface StoreCatalog {
  store: View<Store>;
  menus: View<Menu>[];
  offers: View<Offer>[];
}

export async function catalog(ctx: Context, storeId: number): Promise<StoreCatalog> {
  const store = await getActiveStore(ctx, storeId);
  return {
    store,
    menus: await readViews(ctx.em, Menu, 'm', 'from menus m where m.store_id = ? and m.is_active order by m.sort_order asc, m.id asc', [store.id]),
    offers: await activeOffersForStore(ctx, store.id),
  };
}

/** The active products of an active store, in menu order (products of inactive menus, or of none, are not offered). */
export async function storeProducts(ctx: Context, storeId: number): Promise<View<Product>[]> {
  const store = await getActiveStore(ctx, storeId);
  return readViews(
    ctx.em,
    Product,
    'p',
    `from products p join menu_categories c on c.id = p.menu_category_id join menus m on m.id = c.menu_id
     where p.store_id = ? and p.is_active and m.is_active
     order by m.sort_order asc, m.id asc, c.sort_order asc, c.id asc, p.sort_order asc, p.id asc`,
    [store.id],
  );
}
