/**
 * GET /api/v1/homepage and GET /api/v1/global/search by hand: the one prepared statement each
 * that the service sends (src/modules/discovery/home-screen.ts, search-results.ts), from the
 * same SQL builders, and the answer shaped from its JSON columns.
 */
import { Request } from 'express';
import {
  PRODUCT_BLOCK_ORDER,
  PRODUCT_BLOCKS,
  ProductBlock,
  productBlocksCtes,
  productHitsSql,
} from '../../src/modules/catalog/product-query';
import { HOME_BLOCK_SIZE, HOME_PRODUCT_STORES, SEARCH_LIMIT } from '../../src/modules/discovery/discovery.service';
import { HOME_WALK, homeBlocksCtes, homeListingOf, listedAtMost } from '../../src/modules/stores/home-query';
import { listingOf } from '../../src/modules/stores/reach/reach';
import { ReachAnswers } from '../../src/modules/stores/reach/reach-index';
import { openNowSql } from '../../src/modules/stores/store.loaders';
import { storeHitsSql } from '../../src/modules/stores/store-query';
import {
  amount,
  fromArray,
  kmOf,
  offer,
  openNowParams,
  openOfUnmet,
  preparedRows,
  product,
  Row,
  storeCategory,
  storeSummary,
  Twin,
} from './twin';

export interface DiscoveryTexts {
  /** viewArray of Store as `s` and of Product as `p`, with their property names in that order. */
  storeArray: string;
  storeProperties: string[];
  productArray: string;
  productProperties: string[];
  /** viewObject of Store as `s` and of Product as `p` (search). */
  storeObject: string;
  productObject: string;
  /** store.service.ts mainCategoriesJson, storeCategoriesJson; offer.service.ts activeGlobalOffersJson. */
  mainCategoriesJson: string;
  storeCategoriesJson: string;
  globalOffersJson: string;
}

interface HomeRow {
  stores: [string, number | null, boolean | null, unknown[]][] | null;
  products: [ProductBlock, unknown[]][] | null;
  main_categories: Row[] | null;
  categories: Row[] | null;
  offers: Row[] | null;
}

/** `index`: the reach index built at the twins' start (the bench's cities are not written), as the service's copy in hand. */
export async function home(twin: Twin, index: ReachAnswers, texts: DiscoveryTexts, req: Request): Promise<Row> {
  const { lat, lng } = req.query as Record<string, string | undefined>;
  const point = lat !== undefined && lng !== undefined ? { lat: Number(lat), lng: Number(lng) } : undefined;
  const now = new Date();
  const blocks = homeBlocksCtes(
    point,
    HOME_BLOCK_SIZE,
    HOME_PRODUCT_STORES,
    undefined,
    homeListingOf(point ? listingOf(index, point, listedAtMost(HOME_WALK)) : null),
  );
  const products = productBlocksCtes({ sql: `select id from blocks where block = 'product_sources'`, params: [] }, HOME_BLOCK_SIZE);
  const [row] = await preparedRows<HomeRow>(
    twin,
    `with ${blocks.sql}, ${products.sql}
     select
       (select json_agg(json_build_array(b.block, b.distance_m, ${openNowSql('s')}, ${texts.storeArray}) order by b.block, b.ord)
          from blocks b join stores s on s.id = b.id where b.block <> 'product_sources') as stores,
       (select json_agg(json_build_array(pb.block, ${texts.productArray})) from product_blocks pb join products p on p.id = pb.id) as products,
       ${texts.mainCategoriesJson} as main_categories,
       ${texts.storeCategoriesJson} as categories,
       ${texts.globalOffersJson} as offers`,
    [...blocks.params, ...products.params, ...openNowParams(twin, now)],
  );

  const categories = row.categories ?? [];
  const categoryName = new Map(categories.map((c) => [c.id, c.name as string]));
  const stores = (row.stores ?? []).map(([block, distanceM, open, values]) => ({
    block,
    distanceM,
    open,
    s: fromArray(texts.storeProperties, values),
  }));
  const undecided = await openOfUnmet(
    twin,
    stores.filter((x) => x.open === null).map((x) => x.s as { id: number; timezone: string }),
    now,
  );
  const cards = (block: string) =>
    stores
      .filter((x) => x.block === block)
      .map(({ s, distanceM, open }) =>
        storeSummary(
          s,
          s.category == null ? null : (categoryName.get(s.category) ?? null),
          kmOf(distanceM),
          open ?? undecided.get(s.id as number) ?? false,
        ),
      );
  const productsOf = Object.fromEntries(PRODUCT_BLOCKS.map((b) => [b, [] as Row[]])) as Record<ProductBlock, Row[]>;
  for (const [block, values] of row.products ?? []) productsOf[block].push(fromArray(texts.productProperties, values));
  const productBlock = (block: ProductBlock) =>
    productsOf[block].sort(PRODUCT_BLOCK_ORDER[block] as unknown as (a: Row, b: Row) => number).map(product);

  return {
    main_categories: (row.main_categories ?? []).map((c) => ({
      id: c.id,
      name: c.name,
      icon: c.icon,
      sort_order: c.sortOrder,
      image: c.image,
    })),
    categories: categories.map(storeCategory),
    offers: (row.offers ?? []).map(offer),
    products: productBlock('products'),
    featured_products: productBlock('featured_products'),
    trending_products: productBlock('trending_products'),
    top_rated_stores: cards('top_rated_stores'),
    popular_near_you: cards('popular_near_you'),
    stores: cards('stores'),
  };
}

export async function search(twin: Twin, texts: DiscoveryTexts, req: Request): Promise<Row> {
  const q = req.query.q as string;
  const storeHits = storeHitsSql(q, SEARCH_LIMIT);
  const productHits = productHitsSql(q, SEARCH_LIMIT);
  const [row] = await preparedRows<{ stores: Row[] | null; products: Row[] | null }>(
    twin,
    `with store_hits as (${storeHits.sql}), product_hits as (${productHits.sql})
     select
       (select json_agg(${texts.storeObject} order by h.prefix desc, h.similarity desc, h.rating desc, h.id)
          from store_hits h join stores s on s.id = h.id) as stores,
       (select json_agg(${texts.productObject} order by h.prefix desc, h.similarity desc, h.order_count desc, h.id)
          from product_hits h join products p on p.id = h.id) as products`,
    [...storeHits.params, ...productHits.params],
  );
  return {
    stores: (row.stores ?? []).map((s) => ({ id: s.id, name: s.name, logo: s.logo, slug: s.slug, rating: s.rating })),
    products: (row.products ?? []).map((p) => ({ id: p.id, name: p.name, price: amount(p.priceCents), store_id: p.store, image: p.image })),
  };
}
