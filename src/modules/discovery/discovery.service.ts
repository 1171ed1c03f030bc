/** The customer app's read side: home screen, nearby stores, search (spec §2.1, §2.5, §2.6, §4.3). */
import { EntityManager } from '@mikro-orm/postgresql';
import { pageMeta } from '../../common/pagination';
import { Context } from '../../graphql/context';
import { VISIBLE_PRODUCT_SQL } from '../catalog/catalog.service';
import { Product } from '../catalog/product.entity';
import { activeGlobalOffers } from '../offers/offer.service';
import { MainCategory } from '../stores/main-category.entity';
import { StoreCategory } from '../stores/store-category.entity';
import { findStores, GeoPoint, storeConditions, StoreFilter } from '../stores/store-query';
import { Store } from '../stores/store.entity';
import { NearbyStoresArgs } from './discovery.inputs';
import { Homepage, SearchResult, StorePage } from './discovery.types';

export const HOME_BLOCK_SIZE = 10;
export const SEARCH_LIMIT = 20;

export async function nearbyStores(ctx: Context, args: NearbyStoresArgs): Promise<StorePage> {
  const filter: StoreFilter = {
    point: { lat: args.lat, lng: args.lng },
    radiusKm: args.radius,
    minRating: args.minRating,
    freeDelivery: args.freeDelivery,
    isOpen: args.isOpen,
    hasOffer: args.hasOffer,
    categoryId: args.categoryId,
  };
  const { stores, total } = await findStores(ctx.em, filter, args.sort ?? 'distance', {
    limit: args.perPage,
    offset: (args.page - 1) * args.perPage,
  });
  return { stores, meta: pageMeta(total, args.page, args.perPage) };
}

export async function homepage(ctx: Context, point?: GeoPoint): Promise<Homepage> {
  const em = ctx.em;
  const filter: StoreFilter = { point };
  const top = { limit: HOME_BLOCK_SIZE, offset: 0, count: false };
  const [mainCategories, categories, offers] = [
    await em.find(MainCategory, {}, { orderBy: { sortOrder: 'asc', id: 'asc' } }),
    await em.find(StoreCategory, {}, { orderBy: { sortOrder: 'asc', id: 'asc' } }),
    await activeGlobalOffers(em),
  ];
  return {
    mainCategories,
    categories,
    offers,
    products: await productsOfStores(em, filter, 'p.id desc'),
    featuredProducts: await productsOfStores(em, filter, 'p.order_count desc, p.id asc', 'p.is_featured'),
    trendingProducts: await productsOfStores(em, filter, 'p.order_count desc, p.id asc'),
    topRatedStores: (await findStores(em, filter, 'rating', top)).stores,
    popularNearYou: (await findStores(em, filter, 'popularity', top)).stores,
    stores: (await findStores(em, filter, 'distance', { limit: 2 * HOME_BLOCK_SIZE, offset: 0, count: false })).stores,
  };
}

/** Active products of the active stores matching `filter` (those delivering to the point). */
async function productsOfStores(em: EntityManager, filter: StoreFilter, orderBy: string, extra = 'true'): Promise<Product[]> {
  const { where, params } = storeConditions(filter);
  // The stores delivering here are found once (hashed); products are then read in the
  // order of an index on products and kept while their store is one of them.
  const rows = await em.execute<{ id: number }[]>(
    `with deliverable as materialized (select s.id from stores s where ${where})
     select p.id from products p
     where p.store_id in (select id from deliverable) and ${VISIBLE_PRODUCT_SQL} and ${extra}
     order by ${orderBy} limit ${HOME_BLOCK_SIZE}`,
    params,
  );
  return loadProductsInOrder(em, rows.map((r) => r.id));
}

async function loadProductsInOrder(em: EntityManager, ids: number[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  const found = new Map((await em.find(Product, { id: { $in: ids } })).map((p) => [p.id, p]));
  return ids.map((id) => found.get(id)!);
}

/**
 * Accent- and case-insensitive, typo-tolerant search over store and product names: substring
 * matches first, then by trigram word similarity. Only active stores and their active products.
 */
export async function search(ctx: Context, q: string): Promise<SearchResult> {
  const term = q.trim();
  const literal = term.replace(/[\\%_]/g, '\\$&'); // the user's % and _ are not wildcards
  const byName = (name: string) => ({
    match: `(search_text(${name}) like '%' || search_text(?) || '%' or search_text(?) <% search_text(${name}))`,
    rank: `(search_text(${name}) like search_text(?) || '%') desc, word_similarity(search_text(?), search_text(${name})) desc`,
    params: [literal, term, literal, term],
  });
  const store = byName('s.name');
  const storeRows = await ctx.em.execute<{ id: number }[]>(
    `select s.id from stores s where s.is_active and ${store.match}
     order by ${store.rank}, s.rating desc, s.id limit ${SEARCH_LIMIT}`,
    store.params,
  );
  const product = byName('p.name');
  const productRows = await ctx.em.execute<{ id: number }[]>(
    `select p.id from products p join stores s on s.id = p.store_id
     where ${VISIBLE_PRODUCT_SQL} and s.is_active and ${product.match}
     order by ${product.rank}, p.order_count desc, p.id limit ${SEARCH_LIMIT}`,
    product.params,
  );
  const storesById = new Map(
    (await ctx.em.find(Store, { id: { $in: storeRows.map((r) => r.id) } })).map((s) => [s.id, s]),
  );
  return {
    stores: storeRows.map((r) => storesById.get(r.id)!),
    products: await loadProductsInOrder(ctx.em, productRows.map((r) => r.id)),
  };
}
