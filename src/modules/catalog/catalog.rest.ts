/** Spec §4.3 a store's catalog and products over REST. */
import { OFFER, PRODUCT } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

export const catalogRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/store/stores/:id/catalog',
    cache: true,
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
    path: '/api/v1/store/products',
    cache: true,
    document: `query StoreProducts($store_id: Int!) {
      storeProducts(storeId: $store_id) { ...RestProduct }
    } ${PRODUCT}`,
  },
];
