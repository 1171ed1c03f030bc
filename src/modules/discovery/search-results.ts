/**
 * Search's answer in one statement (issue 9: each round trip to PostgreSQL costs the service a
 * fixed slice of CPU; search took four): the matching stores and products (store-query.ts
 * `storeHitsSql`, product-query.ts `productHitsSql`) and their rows, as JSON columns of views
 * (src/common/row-views.ts `viewObject`) in the hits' own order. The statement is prepared
 * (`executePrepared`; one text per limit, the term bound), so each pooled connection plans it
 * once (docs/decisions.md "Search: ranked names, one prepared statement").
 */
import { fromJson, viewObject } from '../../common/row-views';
import { Context } from '../../context';
import { executePrepared } from '../../common/entity-manager';
import { productHitsSql } from '../catalog/product-query';
import { Product } from '../catalog/product.entity';
import { Store } from '../stores/store.entity';
import { storeHitsSql } from '../stores/store-query';
import { SearchResult } from './discovery.types';

export async function readSearchResults(ctx: Context, q: string, limit: number): Promise<SearchResult> {
  const em = ctx.em;
  const storeHits = storeHitsSql(q, limit);
  const productHits = productHitsSql(q, limit);
  const [row] = await executePrepared<{ stores: object[] | null; products: object[] | null }>(
    em,
    `with store_hits as (${storeHits.sql}), product_hits as (${productHits.sql})
     select
       (select json_agg(${viewObject(em, Store, 's')} order by h.prefix desc, h.similarity desc, h.rating desc, h.id)
          from store_hits h join stores s on s.id = h.id) as stores,
       (select json_agg(${viewObject(em, Product, 'p')} order by h.prefix desc, h.similarity desc, h.order_count desc, h.id)
          from product_hits h join products p on p.id = h.id) as products`,
    [...storeHits.params, ...productHits.params],
  );
  const stores = fromJson(em, Store, row.stores);
  for (const store of stores) store.distanceKm = null;
  return { stores, products: fromJson(em, Product, row.products) };
}
