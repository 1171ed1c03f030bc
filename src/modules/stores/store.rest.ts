/** Spec §4.3 store details and the store category lists over REST. */
import { STORE_CATEGORY, STORE_DETAIL_FRAGMENTS, STORE_SUMMARY } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

export const storeRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/store/stores/:store',
    cache: true,
    document: `query StoreDetails($store: String!) { store(idOrSlug: $store) { ...RestStoreDetail } } ${STORE_DETAIL_FRAGMENTS}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/store-categories',
    cache: true,
    document: `query StoreCategories { storeCategories { ...RestStoreCategory } } ${STORE_CATEGORY}`,
  },
  {
    method: 'GET',
    path: '/api/store/categories',
    cache: true,
    document: `query CategoriesByStore {
      storeCategories {
        ...RestStoreCategory
        stores_count: storesCount
        stores: topStores { ...RestStoreSummary }
      }
    } ${STORE_CATEGORY} ${STORE_SUMMARY}`,
  },
];
