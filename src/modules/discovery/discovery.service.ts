/** The customer app's read side: home screen, nearby stores, search (spec §2.1, §2.5, §2.6, §4.3). */
import { pageMeta } from '../../common/pagination';
import { Context } from '../../context';
import { homeProductBlocks, productsInOrder, searchProductIds } from '../catalog/product-query';
import { activeGlobalOffers } from '../offers/offer.service';
import { homeStoreBlocks } from '../stores/home-query';
import { findStores, GeoPoint, loadStoresInOrder, searchStoreIds, StoreFilter } from '../stores/store-query';
import { requestInstant } from '../stores/local-time';
import { primeStoreCards } from '../stores/store.loaders';
import { listMainCategories, listStoreCategories } from '../stores/store.service';
import { NearbyStoresArgs } from './discovery.inputs';
import { Homepage, SearchResult, StorePage } from './discovery.types';

export const HOME_BLOCK_SIZE = 10;
/** Product blocks of the home screen come from this many of the most ordered-from stores. */
export const HOME_PRODUCT_STORES = 50;
export const SEARCH_LIMIT = 20;

export async function nearbyStores(ctx: Context, args: NearbyStoresArgs): Promise<StorePage> {
  const now = await requestInstant(ctx);
  const filter: StoreFilter = {
    point: { lat: args.lat, lng: args.lng },
    radiusKm: args.radius,
    minRating: args.minRating,
    freeDelivery: args.freeDelivery,
    openAt: args.isOpen ? now : undefined,
    hasOffer: args.hasOffer,
    categoryId: args.categoryId,
  };
  const { stores, total, cards } = await findStores(
    ctx.em,
    filter,
    args.sort ?? 'distance',
    { limit: args.perPage, offset: (args.page - 1) * args.perPage },
    { cardsAt: now },
  );
  // The page's statement read the cards (category, open now): their fields send none.
  if (cards) primeStoreCards(ctx, cards);
  return { stores, meta: pageMeta(total, args.page, args.perPage) };
}

export async function homepage(ctx: Context, point?: GeoPoint): Promise<Homepage> {
  const em = ctx.em;
  const blocks = await homeStoreBlocks(em, point, HOME_BLOCK_SIZE, HOME_PRODUCT_STORES);
  const products = await homeProductBlocks(em, blocks.product_sources.map((s) => s.id), HOME_BLOCK_SIZE);
  const storeRows = [blocks.top_rated_stores, blocks.popular_near_you, blocks.stores];
  const productIds = [products.products, products.featured_products, products.trending_products];
  const [topRatedStores, popularNearYou, stores] = split(await loadStoresInOrder(em, storeRows.flat()), storeRows);
  const [newest, featured, trending] = split(await productsInOrder(em, productIds.flat()), productIds);
  return {
    mainCategories: await listMainCategories(ctx),
    categories: await listStoreCategories(ctx),
    offers: await activeGlobalOffers(ctx),
    products: newest,
    featuredProducts: featured,
    trendingProducts: trending,
    topRatedStores,
    popularNearYou,
    stores,
  };
}

/** Cuts `loaded` (the blocks' rows loaded together, in order) back into the blocks. */
function split<T>(loaded: T[], blocks: unknown[][]): T[][] {
  let at = 0;
  return blocks.map((block) => loaded.slice(at, (at += block.length)));
}

/**
 * Accent- and case-insensitive, typo-tolerant search over store and product names: substring
 * matches first, then by trigram word similarity. Only active stores and their visible products.
 */
export async function search(ctx: Context, q: string): Promise<SearchResult> {
  const storeIds = await searchStoreIds(ctx.em, q, SEARCH_LIMIT);
  const productIds = await searchProductIds(ctx.em, q, SEARCH_LIMIT);
  return {
    stores: await loadStoresInOrder(ctx.em, storeIds.map((id) => ({ id, distanceM: null }))),
    products: await productsInOrder(ctx.em, productIds),
  };
}
