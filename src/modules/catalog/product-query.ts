/**
 * The catalog's raw SQL over products, option groups, option values and supplements: what a
 * customer may see, what a cart is priced from, the home screen's product blocks and product
 * search. Other modules call these functions; the SQL text never leaves this file.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { matchingNames, sqlRowCount } from '../../common/name-search';

/** "A customer may see this product" (`p` is products): active, in a category of an active menu. */
const VISIBLE_PRODUCT = `p.is_active and exists (
  select 1 from menu_categories mc join menus m on m.id = mc.menu_id
  where mc.id = p.menu_category_id and m.is_active)`;

export interface PricingProductRow {
  id: number;
  store_id: number;
  name: string;
  price_cents: number;
  visible: boolean;
}
export interface PricingGroupRow {
  id: number;
  product_id: number;
  name: string;
  is_required: boolean;
  min_select: number;
  max_select: number;
}
export interface PricingValueRow {
  id: number;
  group_id: number;
  product_id: number;
  name: string;
  price_cents: number;
}
export interface PricingSupplementRow {
  id: number;
  product_id: number;
  name: string;
  price_cents: number;
}

/** `in (?)` expands a bound list; an empty list matches nothing. */
const ids = (list: number[]) => (list.length > 0 ? list : [null]);

/**
 * A list of ids as one bound value, a PostgreSQL array literal (`= any(?::int[])`): the text stays
 * the same whatever the list's length, so a statement holding it can be prepared once.
 */
const idArray = (list: number[]) => `{${list.map((id) => Math.trunc(id)).join(',')}}`;

/**
 * `idArray`'s placeholder as `= any(...)` reads it, behind a scalar subquery: PostgreSQL then
 * estimates the list at 10 ids whether or not it sees the values, so a prepared statement's
 * generic plan costs no more than a custom one and is kept. With the values seen, a custom
 * plan of a 1–3 id cart looked 4–5× cheaper than the generic plan's 10 ids (the same index
 * lookups), and checkout's read was planned anew on every execution: 0.5 ms of PostgreSQL CPU
 * per checkout (docs/perf/2026-11-27-checkout-2.md; guarded by test/checkout.test.ts).
 */
const ID_LIST = '(select ?::int[])::int[]';

/** Rows of `select` as one JSON array (`[]` for none): a part of a statement that answers several lists. */
const jsonRows = (select: string) => `(select coalesce(json_agg(r), '[]') from (${select}) r)`;

export interface PricingRows {
  products: PricingProductRow[];
  groups: PricingGroupRow[];
  values: PricingValueRow[];
  supplements: PricingSupplementRow[];
}

/**
 * Everything a cart is priced from, whatever the cart's size, as the select list of one
 * statement (checkout reads it with the store and the address): the products, their option
 * groups, the chosen option values and supplements, each a JSON array column.
 */
export function pricingColumns(productIds: number[], valueIds: number[], supplementIds: number[]): { sql: string; params: string[] } {
  return {
    sql: `${jsonRows(`select p.id, p.store_id, p.name, p.price_cents, (${VISIBLE_PRODUCT}) as visible from products p where p.id = any(${ID_LIST})`)} as products,
       ${jsonRows(`select id, product_id, name, is_required, min_select, max_select from product_option_groups where product_id = any(${ID_LIST})`)} as groups,
       ${jsonRows(`select v.id, v.group_id, g.product_id, v.name, v.price_cents
                   from product_option_values v join product_option_groups g on g.id = v.group_id where v.id = any(${ID_LIST})`)} as "values",
       ${jsonRows(`select id, product_id, name, price_cents from product_supplements where id = any(${ID_LIST})`)} as supplements`,
    params: [idArray(productIds), idArray(productIds), idArray(valueIds), idArray(supplementIds)],
  };
}

export const PRODUCT_BLOCKS = ['products', 'featured_products', 'trending_products'] as const;
export type ProductBlock = (typeof PRODUCT_BLOCKS)[number];

/**
 * The home screen's product blocks, drawn from the visible products of the given stores:
 * newest, featured (most ordered first) and trending (most ordered). One statement
 * (productBlocksCtes); the home screen reads them inside its own.
 */
export async function homeProductBlocks(em: EntityManager, storeIds: number[], size: number): Promise<Record<ProductBlock, number[]>> {
  const ctes = productBlocksCtes({ sql: '?', params: [ids(storeIds)] }, size);
  const rows = await em.execute<(BlockProduct & { block: ProductBlock })[]>(
    `with ${ctes.sql} select block, id, order_count as "orderCount" from product_blocks`,
    ctes.params,
  );
  return Object.fromEntries(
    PRODUCT_BLOCKS.map((b) => [
      b,
      rows
        .filter((r) => r.block === b)
        .sort(PRODUCT_BLOCK_ORDER[b])
        .map((r) => r.id),
    ]),
  ) as Record<ProductBlock, number[]>;
}

/** Each product block's order (the SQL's, as a comparator: its rows come back unordered). */
export const PRODUCT_BLOCK_ORDER: Record<ProductBlock, (a: BlockProduct, b: BlockProduct) => number> = {
  products: (a, b) => b.id - a.id,
  featured_products: (a, b) => b.orderCount - a.orderCount || a.id - b.id,
  trending_products: (a, b) => b.orderCount - a.orderCount || a.id - b.id,
};

/**
 * `product_blocks(block, id, order_count)` of the visible products of the stores that `stores`
 * selects (SQL inside `in (...)`). The stores' products are read once through the store
 * index (a few hundred rows whatever the city's size; an index walk in block order that
 * filtered on the stores read a row per product of the city until it met ten of theirs), each
 * block sorts them and tests visibility in that order only until it has its ten (`offset 0`
 * keeps the test above the sort). docs/decisions.md "Home screen: the store blocks".
 */
export function productBlocksCtes(stores: { sql: string; params: unknown[] }, size: number): { sql: string; params: unknown[] } {
  const block = (sqlOrder: string, extra = 'true') =>
    `(select ?::text as block, p.id, p.order_count from (
        select * from candidates where ${extra} order by ${sqlOrder} offset 0) p
      where ${VISIBLE_PRODUCT} limit ?)`;
  return {
    sql: `candidates as materialized (
       select p.id, p.order_count, p.is_featured, p.is_active, p.menu_category_id from products p where p.store_id in (${stores.sql})),
     product_blocks as (${[block('id desc'), block('order_count desc, id', 'is_featured'), block('order_count desc, id')].join(' union all ')})`,
    params: [...stores.params, ...['products', size], ...['featured_products', size], ...['trending_products', size]],
  };
}

/** What a product block is sorted by (a row of product_blocks, or the product itself). */
export type BlockProduct = { id: number; orderCount: number };

/**
 * The search's products `(id, prefix, similarity, order_count)`, best first: (prefix desc,
 * similarity desc, order_count desc, id) is their order. Names are ranked once each
 * (product_search_names) and each matching name gives its most ordered visible products from
 * `products_search_name_index`; products of worse-ranked names are read only while the page is short.
 * As `storeHitsSql`: the SQL depends on `limit` only, the term is in `params`.
 */
export function productHitsSql(q: string, limit: number): { sql: string; params: string[] } {
  const names = matchingNames('product_search_names', q);
  const rows = sqlRowCount(limit);
  // stores.is_active is read here, in the same statement, so the limit counts visible products only.
  return {
    sql: `select p.id, n.prefix, n.similarity, p.order_count from ${names.sql} n cross join lateral (
       select p.id, p.order_count from products p join stores s on s.id = p.store_id
       where search_text(p.name) = n.search_name and ${VISIBLE_PRODUCT} and s.is_active
       order by p.order_count desc, p.id limit ${rows}) p
     order by n.prefix desc, n.similarity desc, p.order_count desc, p.id limit ${rows}`,
    params: names.params,
  };
}

/** Counts delivered quantities for "featured" and "trending" (a step of the delivering transaction). */
export async function countDeliveredProducts(tx: EntityManager, quantities: { productId: number; quantity: number }[]): Promise<void> {
  for (const { productId, quantity } of quantities) {
    await tx.execute(`update products set order_count = order_count + ? where id = ?`, [quantity, productId]);
  }
}
