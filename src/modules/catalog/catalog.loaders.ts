/**
 * Batch loaders of the catalog: every nested list (menus -> categories -> products -> options)
 * costs one SQL statement per level, whatever the menu size. Customers see active products only.
 * They answer read-only views (src/common/row-views.ts): they feed answers, never writes. The
 * catalog reads the whole tree in its own statement and primes them (catalogTreeSql below);
 * the menus list and any other way to a menu still load level by level.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { batchLoader, groupBy } from '../../common/batch-loader';
import { fromJson, readViews, View, viewObject } from '../../common/row-views';
import { Context } from '../../context';
import { Menu } from './menu.entity';
import { MenuCategory } from './menu-category.entity';
import { ProductOptionGroup, ProductOptionValue, ProductSupplement } from './product-option.entity';
import { Product } from './product.entity';

/** Display order of each level, by the alias its loader and catalogTreeSql give its table. */
const ORDER = {
  m: 'm.sort_order asc, m.id asc',
  c: 'c.sort_order asc, c.id asc',
  p: 'p.sort_order asc, p.id asc',
  g: 'g.sort_order asc, g.id asc',
  v: 'v.sort_order asc, v.id asc',
  s: 's.sort_order asc, s.id asc',
};

export const categoriesOfMenu = batchLoader<number, View<MenuCategory>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, MenuCategory, 'c', `from menu_categories c where c.menu_id in (?) order by ${ORDER.c}`, [[...keys]]),
    (c) => c.menu!.id,
  ),
);

export const activeProductsOfCategory = batchLoader<number, View<Product>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, Product, 'p', `from products p where p.menu_category_id in (?) and p.is_active order by ${ORDER.p}`, [[...keys]]),
    (p) => p.menuCategory!.id,
  ),
);

export const optionGroupsOfProduct = batchLoader<number, View<ProductOptionGroup>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, ProductOptionGroup, 'g', `from product_option_groups g where g.product_id in (?) order by ${ORDER.g}`, [[...keys]]),
    (g) => g.product.id,
  ),
);

export const valuesOfOptionGroup = batchLoader<number, View<ProductOptionValue>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, ProductOptionValue, 'v', `from product_option_values v where v.group_id in (?) order by ${ORDER.v}`, [[...keys]]),
    (v) => v.group.id,
  ),
);

export const supplementsOfProduct = batchLoader<number, View<ProductSupplement>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, ProductSupplement, 's', `from product_supplements s where s.product_id in (?) order by ${ORDER.s}`, [[...keys]]),
    (s) => s.product.id,
  ),
);

/** The catalog tree below a store, each level as a JSON array (null: none) in its loader's order. */
export interface CatalogTreeColumns {
  tree_menus: object[] | null;
  tree_categories: object[] | null;
  tree_products: object[] | null;
  tree_groups: object[] | null;
  tree_values: object[] | null;
  tree_supplements: object[] | null;
}

/**
 * `with` clauses (after the caller's own `with st as (...)`, a one-row CTE holding the store's
 * `id`) and the select-list columns of CatalogTreeColumns: the store's active menus and, level
 * by level, exactly the rows the loaders above would read for them, in one statement
 * (docs/decisions.md "One statement per screen and per store read").
 */
export function catalogTreeSql(em: EntityManager): { with: string; columns: string } {
  const json = (entity: Parameters<typeof viewObject>[1], alias: keyof typeof ORDER, from: string) =>
    `(select json_agg(${viewObject(em, entity, alias)} order by ${ORDER[alias]}) from ${from} ${alias})`;
  return {
    with: `tm as (select m.* from menus m where m.store_id = (select id from st) and m.is_active),
           tc as (select c.* from menu_categories c where c.menu_id in (select id from tm)),
           tp as (select p.* from products p where p.menu_category_id in (select id from tc) and p.is_active),
           tg as (select g.* from product_option_groups g where g.product_id in (select id from tp))`,
    columns: `${json(Menu, 'm', 'tm')} as tree_menus,
              ${json(MenuCategory, 'c', 'tc')} as tree_categories,
              ${json(Product, 'p', 'tp')} as tree_products,
              ${json(ProductOptionGroup, 'g', 'tg')} as tree_groups,
              ${json(ProductOptionValue, 'v', '(select v.* from product_option_values v where v.group_id in (select id from tg))')} as tree_values,
              ${json(ProductSupplement, 's', '(select s.* from product_supplements s where s.product_id in (select id from tp))')} as tree_supplements`,
  };
}

/**
 * The menus of a catalog tree read with catalogTreeSql; every level below is handed to its
 * loader (DataLoader `prime`, empty lists too), so the nested fields read nothing more.
 */
export function primeCatalogTree(ctx: Context, tree: CatalogTreeColumns): View<Menu>[] {
  const em = ctx.em;
  const menus = fromJson(em, Menu, tree.tree_menus);
  const categories = fromJson(em, MenuCategory, tree.tree_categories);
  const products = fromJson(em, Product, tree.tree_products);
  const groups = fromJson(em, ProductOptionGroup, tree.tree_groups);
  const prime = <V>(loader: { prime: (key: number, value: V[]) => unknown }, keys: number[], rows: V[], keyOf: (row: V) => number) =>
    groupBy(keys, rows, keyOf).forEach((group, i) => loader.prime(keys[i], group));
  const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
  prime(categoriesOfMenu(ctx), ids(menus), categories, (c) => c.menu!.id);
  prime(activeProductsOfCategory(ctx), ids(categories), products, (p) => p.menuCategory!.id);
  prime(optionGroupsOfProduct(ctx), ids(products), groups, (g) => g.product.id);
  prime(valuesOfOptionGroup(ctx), ids(groups), fromJson(em, ProductOptionValue, tree.tree_values), (v) => v.group.id);
  prime(supplementsOfProduct(ctx), ids(products), fromJson(em, ProductSupplement, tree.tree_supplements), (s) => s.product.id);
  return menus;
}
