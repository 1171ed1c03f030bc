/** Spec §4.3 home, search and nearby over REST. */
import { OFFER, PAGE_META, PRODUCT, STORE_CATEGORY, STORE_SUMMARY } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

export const discoveryRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/homepage',
    cache: true,
    document: `query Homepage($lat: Float, $lng: Float) {
      homepage(lat: $lat, lng: $lng) {
        main_categories: mainCategories { id name icon sort_order: sortOrder image }
        categories { ...RestStoreCategory }
        offers { ...RestOffer }
        products { ...RestProduct }
        featured_products: featuredProducts { ...RestProduct }
        trending_products: trendingProducts { ...RestProduct }
        top_rated_stores: topRatedStores { ...RestStoreSummary }
        popular_near_you: popularNearYou { ...RestStoreSummary }
        stores { ...RestStoreSummary }
      }
    } ${STORE_CATEGORY} ${OFFER} ${PRODUCT} ${STORE_SUMMARY}`,
  },
  {
    method: 'GET',
    path: '/api/v1/global/search',
    cache: true,
    document: `query Search($q: String!) {
      search(q: $q) {
        stores { id name logo slug rating }
        products { id name price store_id: storeId image }
      }
    }`,
  },
  {
    method: 'GET',
    path: '/api/v1/stores/nearby',
    cache: true,
    document: `query NearbyStores($lat: Float!, $lng: Float!, $radius: Int, $min_rating: Float, $free_delivery: Boolean,
        $is_open: Boolean, $has_offer: Boolean, $category_id: Int, $sort: String, $page: Int, $per_page: Int) {
      nearbyStores(lat: $lat, lng: $lng, radius: $radius, minRating: $min_rating, freeDelivery: $free_delivery,
          isOpen: $is_open, hasOffer: $has_offer, categoryId: $category_id, sort: $sort, page: $page, perPage: $per_page) {
        stores { ...RestStoreSummary }
        meta { ...RestPageMeta }
      }
    } ${STORE_SUMMARY} ${PAGE_META}`,
  },
];
