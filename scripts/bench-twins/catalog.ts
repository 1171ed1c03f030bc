/**
 * GET /api/v1/store/stores/:id/catalog and GET /api/v1/store/products by hand: the one
 * statement each that the service sends (src/modules/catalog/catalog.service.ts), prepared, from
 * the same SQL builders, and the nested answer shaped from its JSON columns.
 */
import { Request } from 'express';
import { storeKeyCondition } from '../../src/modules/stores/store.service';
import { amount, choice, groupBy, offer, openNowParams, openOfUnmet, preparedRows, product, Row, Twin } from './twin';

export interface CatalogTexts {
  /** catalog.service.ts catalogSql for a key condition: the service's own text, built once. */
  sql: (condition: string) => string;
  /** viewObject of Product as `p`. */
  productObject: string;
}

type CatalogRow = Row & {
  pre_open: boolean | null;
  pre_offers: Row[] | null;
  tree_menus: Row[] | null;
  tree_categories: Row[] | null;
  tree_products: Row[] | null;
  tree_groups: Row[] | null;
  tree_values: Row[] | null;
  tree_supplements: Row[] | null;
};

/** The catalog, or null for a store that is not active. */
export async function catalog(twin: Twin, texts: CatalogTexts, req: Request): Promise<Row | null> {
  const { sql, param } = storeKeyCondition(Number(req.params.id), 's');
  const now = new Date();
  // Prepared, as the service sends it (catalog.service.ts catalog: executePrepared).
  const [row] = await preparedRows<CatalogRow>(twin, texts.sql(sql), [...openNowParams(twin, now), param]);
  if (!row) return null;
  const s = row;
  const open =
    s.pre_open ?? (await openOfUnmet(twin, [s as unknown as { id: number; timezone: string }], now)).get(s.id as number) ?? false;
  const categoriesOf = groupBy(row.tree_categories ?? [], (c) => c.menu);
  const productsOf = groupBy(row.tree_products ?? [], (p) => p.menuCategory);
  const groupsOf = groupBy(row.tree_groups ?? [], (g) => g.product);
  const valuesOf = groupBy(row.tree_values ?? [], (v) => v.group);
  const supplementsOf = groupBy(row.tree_supplements ?? [], (x) => x.product);
  return {
    store: {
      id: s.id,
      name: s.name,
      slug: s.slug,
      logo: s.logo,
      image: s.image,
      address: s.address,
      rating: s.rating,
      rating_count: s.ratingCount,
      delivery_price: s.freeDelivery ? 0 : amount(s.deliveryPriceCents),
      free_delivery: s.freeDelivery,
      delivery_time: s.deliveryTime,
      is_open: open,
    },
    menus: (row.tree_menus ?? []).map((m) => ({
      id: m.id,
      name: m.name,
      description: m.description,
      categories: (categoriesOf.get(m.id) ?? []).map((c) => ({
        id: c.id,
        name: c.name,
        products: (productsOf.get(c.id) ?? []).map((p) => ({
          ...product(p),
          options: (groupsOf.get(p.id) ?? []).map((g) => ({
            id: g.id,
            name: g.name,
            is_required: g.isRequired,
            min_select: g.minSelect,
            max_select: g.maxSelect,
            values: (valuesOf.get(g.id) ?? []).map(choice),
          })),
          supplements: (supplementsOf.get(p.id) ?? []).map(choice),
        })),
      })),
    })),
    offers: (row.pre_offers ?? []).map(offer),
  };
}

/** The store's products, or null for a store that is not active. */
export async function storeProducts(twin: Twin, texts: CatalogTexts, req: Request): Promise<Row[] | null> {
  const { sql, param } = storeKeyCondition(Number(req.query.store_id), 's');
  // Prepared, as the service sends it (catalog.service.ts storeProducts: executePrepared).
  const [row] = await preparedRows<{ products: Row[] | null }>(
    twin,
    `select (select json_agg(${texts.productObject}
                             order by m.sort_order asc, m.id asc, c.sort_order asc, c.id asc, p.sort_order asc, p.id asc)
             from products p join menu_categories c on c.id = p.menu_category_id join menus m on m.id = c.menu_id
             where p.store_id = s.id and p.is_active and m.is_active) as products
     from stores s where ${sql} and s.is_active`,
    [param],
  );
  return row ? (row.products ?? []).map(product) : null;
}
