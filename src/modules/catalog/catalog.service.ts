/**
 * A store's catalog for customers (spec §2.7): active menus; nested levels come from loaders.
 * Everything here is answered, never written: read-only views (src/common/row-views.ts).
 * Each read is one statement (docs/decisions.md "One statement per screen and per store read"):
 * the catalog reads the store, "open now", its whole tree and its offers together and primes
 * the loaders of the nested fields; store products reads the store's check with its products.
 */
import { notFound } from '../../common/errors';
import { asViews, fromJson, View, viewColumns, viewObject } from '../../common/row-views';
import { EntityManager } from '@mikro-orm/postgresql';
import { Context } from '../../context';
import { executePrepared, textsBuiltOnce } from '../../common/entity-manager';
import { Offer } from '../offers/offer.entity';
import { offersForStoreJson } from '../offers/offer.service';
import { storeKeyCondition } from '../stores/store.service';
import { openNowParams, openNowSql, primeIsOpen, storeById } from '../stores/store.loaders';
import { Store } from '../stores/store.entity';
import { CatalogTreeColumns, catalogTreeSql, primeCatalogTree } from './catalog.loaders';
import { Menu } from './menu.entity';
import { Product } from './product.entity';

/** A store with its active menus and the offers that apply to it. */
export interface StoreCatalog {
  store: View<Store>;
  menus: View<Menu>[];
  offers: View<Offer>[];
}

interface CatalogRow extends CatalogTreeColumns {
  pre_open: boolean | null;
  pre_offers: object[] | null;
}

/** The catalog's text for a key condition (`s.id = ?` or `s.slug = ?`): code only, built once (textsBuiltOnce). */
const catalogTexts = textsBuiltOnce();

/** Exported for the bench's hand-written twin, which sends the same text. */
export function catalogSql(em: EntityManager, condition: string): string {
  return catalogTexts(condition, () => {
    const tree = catalogTreeSql(em);
    return `with st as (select ${viewColumns(em, Store, 's')}, ${openNowSql('s')} as pre_open from stores s where ${condition} and s.is_active),
          ${tree.with}
     select st.*, ${offersForStoreJson(em, 'st')} as pre_offers, ${tree.columns} from st`;
  });
}

/**
 * An active store's catalog (404 otherwise), its nested levels primed. One prepared statement
 * (`executePrepared`: the key and the zones' clocks bound, parsed once per pooled connection): rows as views, nothing
 * loaded or flushed.
 */
export async function catalog(ctx: Context, storeId: number): Promise<StoreCatalog> {
  const em = ctx.em;
  const { sql, param, key } = storeKeyCondition(storeId, 's');
  const [row] = await executePrepared<CatalogRow>(em, catalogSql(em, sql), [...(await openNowParams(ctx)), param]);
  if (!row) throw notFound('Store', key);
  const {
    pre_open: open,
    pre_offers: offers,
    tree_menus,
    tree_categories,
    tree_products,
    tree_groups,
    tree_values,
    tree_supplements,
    ...columns
  } = row;
  const [store] = asViews(em, Store, [columns]);
  primeIsOpen(ctx, store, open);
  storeById(ctx).prime(store.id, store);
  const menus = primeCatalogTree(ctx, { tree_menus, tree_categories, tree_products, tree_groups, tree_values, tree_supplements });
  return { store, menus, offers: fromJson(em, Offer, offers) };
}

/** storeProducts' text for a key condition, built once (as store-details.service.ts `detailsSql`). */
const productsTexts = textsBuiltOnce();

function storeProductsSql(em: EntityManager, condition: string): string {
  return productsTexts(
    condition,
    () => `select (select json_agg(${viewObject(em, Product, 'p')}
                             order by m.sort_order asc, m.id asc, c.sort_order asc, c.id asc, p.sort_order asc, p.id asc)
             from products p join menu_categories c on c.id = p.menu_category_id join menus m on m.id = c.menu_id
             where p.store_id = s.id and p.is_active and m.is_active) as products
     from stores s where ${condition} and s.is_active`,
  );
}

/**
 * The active products of an active store, in menu order (products of inactive menus, or of none,
 * are not offered). One prepared statement, no fork of its own (as store-details.service.ts).
 */
export async function storeProducts(ctx: Context, storeId: number): Promise<View<Product>[]> {
  const em = ctx.em;
  const { sql, param, key } = storeKeyCondition(storeId, 's');
  const [row] = await executePrepared<{ products: object[] | null }>(em, storeProductsSql(em, sql), [param]);
  if (!row) throw notFound('Store', key);
  return fromJson(em, Product, row.products);
}
