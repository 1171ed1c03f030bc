/** The customer app's read side: home screen, nearby stores, search (spec §2.1, §2.5, §2.6, §4.3). */
import { EntityManager } from '@mikro-orm/postgresql';
import { pageMeta } from '../../common/pagination';
import { Context } from '../../context';
import { VISIBLE_PRODUCT_SQL } from '../catalog/catalog.service';
import { Product } from '../catalog/product.entity';
import { activeGlobalOffers } from '../offers/offer.service';
import { findStores, GeoPoint, storeConditions, StoreFilter } from '../stores/store-query';
import { Store } from '../stores/store.entity';
import { storeLocalTimes } from '../stores/local-time';
import { listMainCategories, listStoreCategories } from '../stores/store.service';
import { NearbyStoresArgs } from './discovery.inputs';
import { Homepage, SearchResult, StorePage } from './discovery.types';

export const HOME_BLOCK_SIZE = 10;
/** Product blocks of the home screen come from this many of the most ordered-from stores. */
export const HOME_PRODUCT_STORES = 50;
export const SEARCH_LIMIT = 20;

export async function nearbyStores(ctx: Context, args: NearbyStoresArgs): Promise<StorePage> {
  const filter: StoreFilter = {
    point: { lat: args.lat, lng: args.lng },
    radiusKm: args.radius,
    minRating: args.minRating,
    freeDelivery: args.freeDelivery,
    openAt: args.isOpen ? await storeLocalTimes(ctx) : undefined,
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
  const blocks = await homeBlocks(em, { point });
  const stores = await loadStoresInOrder(em, [...blocks.top_rated_stores, ...blocks.popular_near_you, ...blocks.stores]);
  const storeBlock = (rows: BlockRow[]) => rows.map((r) => stores.get(r.id)!);
  return {
    mainCategories: await listMainCategories(em),
    categories: await listStoreCategories(em),
    offers: await activeGlobalOffers(em),
    products: await loadProductsInOrder(em, blocks.products.map((r) => r.id)),
    featuredProducts: await loadProductsInOrder(em, blocks.featured_products.map((r) => r.id)),
    trendingProducts: await loadProductsInOrder(em, blocks.trending_products.map((r) => r.id)),
    topRatedStores: storeBlock(blocks.top_rated_stores),
    popularNearYou: storeBlock(blocks.popular_near_you),
    stores: storeBlock(blocks.stores),
  };
}

type BlockRow = { block: string; id: number; distance_m: number | null; ord: number };
const BLOCKS = ['top_rated_stores', 'popular_near_you', 'stores', 'products', 'featured_products', 'trending_products'] as const;

/**
 * The six home blocks in one statement: the stores delivering here are found once and the
 * store blocks are top-N sorts of them; the product blocks draw from the products of the
 * HOME_PRODUCT_STORES most ordered-from of those stores, so their cost does not grow with the
 * city (docs/decisions.md).
 */
async function homeBlocks(em: EntityManager, filter: StoreFilter): Promise<Record<(typeof BLOCKS)[number], BlockRow[]>> {
  const { where, params, distance } = storeConditions(filter);
  const near = filter.point ? 'distance_m, ' : '';
  const storeBlock = (name: string, order: string, limit: number) =>
    `(select '${name}' as block, id, distance_m, row_number() over (order by ${order}, id) as ord from d order by ${order}, id limit ${limit})`;
  const productBlock = (name: string, order: string, extra = 'true') =>
    `(select '${name}' as block, p.id, null::float8, row_number() over (order by ${order}) as ord
      from products p where p.store_id in (select id from c) and ${VISIBLE_PRODUCT_SQL} and ${extra} order by ${order} limit ${HOME_BLOCK_SIZE})`;
  const rows = await em.execute<BlockRow[]>(
    `with d as materialized (
       select s.id, ${distance} as distance_m, s.rating, s.rating_count, s.order_count from stores s where ${where}),
     c as materialized (select id from d order by order_count desc, rating desc, id limit ${HOME_PRODUCT_STORES})
     ${[
       storeBlock('top_rated_stores', `rating desc, rating_count desc, ${near}order_count desc`, HOME_BLOCK_SIZE),
       storeBlock('popular_near_you', `order_count desc, rating desc, ${near}rating_count desc`, HOME_BLOCK_SIZE),
       storeBlock('stores', filter.point ? 'distance_m' : 'order_count desc, rating desc', 2 * HOME_BLOCK_SIZE),
       productBlock('products', 'p.id desc'),
       productBlock('featured_products', 'p.order_count desc, p.id', 'p.is_featured'),
       productBlock('trending_products', 'p.order_count desc, p.id'),
     ].join(' union all ')}`,
    params,
  );
  const grouped = Object.fromEntries(BLOCKS.map((b) => [b, [] as BlockRow[]])) as Record<(typeof BLOCKS)[number], BlockRow[]>;
  for (const row of rows) grouped[row.block as (typeof BLOCKS)[number]].push(row);
  for (const block of BLOCKS) grouped[block].sort((a, b) => Number(a.ord) - Number(b.ord));
  return grouped;
}

async function loadStoresInOrder(em: EntityManager, rows: BlockRow[]): Promise<Map<number, Store>> {
  const stores = new Map((await em.find(Store, { id: { $in: [...new Set(rows.map((r) => r.id))] } })).map((st) => [st.id, st]));
  for (const row of rows) {
    const store = stores.get(row.id);
    if (store) store.distanceKm = row.distance_m === null ? null : Math.round(row.distance_m / 10) / 100;
  }
  return stores;
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
