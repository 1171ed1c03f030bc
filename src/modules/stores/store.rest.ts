/** Spec §4.3 store details and the store category lists over REST. */
import { CATEGORIES_WITH_STORES_READS, STORE_CATEGORIES_READS, STORE_DETAILS_READS } from '../../rest/cache-reads';
import { STORE_CATEGORY, STORE_DETAIL_FRAGMENTS, STORE_SUMMARY } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

export const storeRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/store/stores/:store',
    cache: { reads: STORE_DETAILS_READS },
    document: `query StoreDetails($store: String!) { store(idOrSlug: $store) { ...RestStoreDetail } } ${STORE_DETAIL_FRAGMENTS}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/store-categories',
    cache: { reads: STORE_CATEGORIES_READS },
    document: `query StoreCategories { storeCategories { ...RestStoreCategory } } ${STORE_CATEGORY}`,
  },
  {
    method: 'GET',
    path: '/api/store/categories',
    cache: { reads: CATEGORIES_WITH_STORES_READS },
    document: `query CategoriesByStore {
      storeCategories {
        ...RestStoreCategory
        stores_count: storesCount
        stores: topStores { ...RestStoreSummary }
      }
    } ${STORE_CATEGORY} ${STORE_SUMMARY}`,
  },
];
