/** Spec §4.3 catalog, store details, products, and the store category lists, over REST. */
import { OFFER, PRODUCT, STORE_CATEGORY, STORE_DETAIL_FRAGMENTS, STORE_SUMMARY } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

export const catalogRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/store/stores/:id/catalog',
    document: `query Catalog($id: Int!) {
      catalog(storeId: $id) {
        store {
          id name slug logo image address rating
          rating_count: ratingCount delivery_price: deliveryPrice free_delivery: freeDelivery
          delivery_time: deliveryTime is_open: isOpen
        }
        menus {
          id name description
          categories {
            id name
            products {
              ...RestProduct
              options: optionGroups {
                id name is_required: isRequired min_select: minSelect max_select: maxSelect
                values { id name price }
              }
              supplements { id name price }
            }
          }
        }
        offers { ...RestOffer }
      }
    } ${PRODUCT} ${OFFER}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/stores/:store',
    document: `query StoreDetails($store: String!) { store(idOrSlug: $store) { ...RestStoreDetail } } ${STORE_DETAIL_FRAGMENTS}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/products',
    document: `query StoreProducts($store_id: Int!) {
      storeProducts(storeId: $store_id) { ...RestProduct }
    } ${PRODUCT}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/store-categories',
    document: `query StoreCategories { storeCategories { ...RestStoreCategory } } ${STORE_CATEGORY}`,
  },
  {
    method: 'GET',
    path: '/api/store/categories',
    document: `query CategoriesByStore {
      storeCategories {
        ...RestStoreCategory
        stores_count: storesCount
        stores: topStores { ...RestStoreSummary }
      }
    } ${STORE_CATEGORY} ${STORE_SUMMARY}`,
  },
];
