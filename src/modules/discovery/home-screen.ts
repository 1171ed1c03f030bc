/**
 * The home screen in one statement (issue 9: on this service each round trip to PostgreSQL
 * costs a fixed slice of CPU, more than the SQL behind it; the screen took nine or ten): the
 * store blocks (home-query.ts), the product blocks drawn from their stores (product-query.ts),
 * the rows of every card, "open now" of each store, the categories and the global offers, each
 * block a JSON column of views (src/common/row-views.ts `viewObject`, and `viewArray` for the long
 * lists of cards and products). Nothing the cards' field
 * resolvers would read is left to a loader: "open now" and the store categories are handed to
 * theirs (`prime`), which still answer whatever was not. docs/decisions.md "One statement per screen
 * and per store read"; docs/perf/2026-11-25-home-where-few-deliver.md for the
 * reach index's listing.
 */
import { fromJson, fromJsonArrays, viewArray } from '../../common/row-views';
import { Context } from '../../context';
import { executePrepared, PreparedValue } from '../../common/entity-manager';
import { PRODUCT_BLOCK_ORDER, PRODUCT_BLOCKS, ProductBlock, productBlocksCtes } from '../catalog/product-query';
import { Product } from '../catalog/product.entity';
import { activeGlobalOffersJson } from '../offers/offer.service';
import { Offer } from '../offers/offer.entity';
import { homeBlocksCtes, homeListing, StoreBlock } from '../stores/home-query';
import { MainCategory } from '../stores/main-category.entity';
import { StoreCategory } from '../stores/store-category.entity';
import { Store } from '../stores/store.entity';
import { openNowParams, openNowSql, primeIsOpen, storeCategoryById } from '../stores/store.loaders';
import { GeoPoint } from '../stores/store-query';
import { mainCategoriesJson, storeCategoriesJson } from '../stores/store.service';
import { Homepage } from './discovery.types';

type ShownBlock = Exclude<StoreBlock, 'product_sources'>;

interface HomeRow {
  /** [block, distance in metres, open now (null: not decided here), the store's columns (`viewArray`)], in block order. */
  stores: [ShownBlock, number | null, boolean | null, unknown[]][] | null;
  /** [block, the product's columns (`viewArray`)], unordered. */
  products: [ProductBlock, unknown[]][] | null;
  main_categories: object[] | null;
  categories: object[] | null;
  offers: object[] | null;
}

export async function readHomeScreen(ctx: Context, point: GeoPoint | undefined, size: number, sources: number): Promise<Homepage> {
  const em = ctx.em;
  // Where few stores deliver, the copy of the reach index in hand names them (no statement; the
  // home statement uses the list only at the copy's version, so a stale copy costs time, not answers).
  const blocks = homeBlocksCtes(point, size, sources, undefined, homeListing(em, point));
  const products = productBlocksCtes({ sql: `select id from blocks where block = 'product_sources'`, params: [] }, size);
  // Prepared: the long text is parsed and planned once per connection, not per request.
  const [row] = await executePrepared<HomeRow>(
    em,
    `with ${blocks.sql}, ${products.sql}
     select
       (select json_agg(json_build_array(b.block, b.distance_m, ${openNowSql('s')}, ${viewArray(em, Store, 's')}) order by b.block, b.ord)
          from blocks b join stores s on s.id = b.id where b.block <> 'product_sources') as stores,
       (select json_agg(json_build_array(pb.block, ${viewArray(em, Product, 'p')})) from product_blocks pb join products p on p.id = pb.id) as products,
       ${mainCategoriesJson(em)} as main_categories,
       ${storeCategoriesJson(em)} as categories,
       ${activeGlobalOffersJson(em)} as offers`,
    [...blocks.params, ...products.params, ...(await openNowParams(ctx))] as PreparedValue[],
  );

  const storeEntries = row.stores ?? [];
  const stores = fromJsonArrays(
    em,
    Store,
    storeEntries.map((entry) => entry[3]),
  );
  const storeBlocks: Record<ShownBlock, Store[]> = { top_rated_stores: [], popular_near_you: [], stores: [] };
  storeEntries.forEach(([block, distanceM, open], k) => {
    const store = stores[k];
    store.distanceKm = distanceM === null ? null : Math.round(distanceM / 10) / 100;
    primeIsOpen(ctx, store, open);
    storeBlocks[block].push(store);
  });

  const productEntries = row.products ?? [];
  const productViews = fromJsonArrays(
    em,
    Product,
    productEntries.map((entry) => entry[1]),
  );
  const productBlocks = Object.fromEntries(PRODUCT_BLOCKS.map((b) => [b, [] as Product[]])) as Record<ProductBlock, Product[]>;
  productEntries.forEach(([block], k) => productBlocks[block].push(productViews[k]));
  for (const block of PRODUCT_BLOCKS) productBlocks[block].sort(PRODUCT_BLOCK_ORDER[block]);

  const categories = fromJson(em, StoreCategory, row.categories);
  // Every category is here: the stores' `category` and `categoryName` read no more.
  for (const category of categories) storeCategoryById(ctx).prime(category.id, category);

  return {
    mainCategories: fromJson(em, MainCategory, row.main_categories),
    categories,
    offers: fromJson(em, Offer, row.offers),
    products: productBlocks.products,
    featuredProducts: productBlocks.featured_products,
    trendingProducts: productBlocks.trending_products,
    topRatedStores: storeBlocks.top_rated_stores,
    popularNearYou: storeBlocks.popular_near_you,
    stores: storeBlocks.stores,
  };
}
