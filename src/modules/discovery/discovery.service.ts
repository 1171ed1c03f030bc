/** The customer app's read side: home screen, nearby stores, search (spec §2.1, §2.5, §2.6, §4.3). */
import { pageMeta } from '../../common/pagination';
import { Context } from '../../context';
import { findStores } from '../stores/find-stores';
import { GeoPoint, StoreFilter } from '../stores/store-query';
import { requestInstant, requestInstantNow } from '../stores/local-time';
import { primeStoreCards } from '../stores/store.loaders';
import { NearbyStoresArgs } from './discovery.inputs';
import { Homepage, SearchResult, StorePage } from './discovery.types';
import { readHomeScreen } from './home-screen';
import { readSearchResults } from './search-results';

export const HOME_BLOCK_SIZE = 10;
/** Product blocks of the home screen come from this many of the most ordered-from stores. */
export const HOME_PRODUCT_STORES = 50;
export const SEARCH_LIMIT = 20;

export async function nearbyStores(ctx: Context, args: NearbyStoresArgs): Promise<StorePage> {
  const now = requestInstantNow(ctx) ?? (await requestInstant(ctx));
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

/** The home screen's nine blocks, read in one statement (home-screen.ts). */
export async function homepage(ctx: Context, point?: GeoPoint): Promise<Homepage> {
  return readHomeScreen(ctx, point, HOME_BLOCK_SIZE, HOME_PRODUCT_STORES);
}

/**
 * Accent- and case-insensitive, typo-tolerant search over store and product names: substring
 * matches first, then by trigram word similarity. Only active stores and their visible products.
 */
export async function search(ctx: Context, q: string): Promise<SearchResult> {
  return readSearchResults(ctx, q, SEARCH_LIMIT);
}
