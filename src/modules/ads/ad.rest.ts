/** Spec §4.3 ads over REST. */
import { RestRoute } from '../../rest/route';

export const adRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/global/ads',
    cache: true,
    document: `query Ads {
      ads { id title type image redirect_type: redirectType store_id: storeId product_id: productId sort_order: sortOrder }
    }`,
  },
];
