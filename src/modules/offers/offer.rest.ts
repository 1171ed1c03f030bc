/** Spec §4.2 offers over REST. */
import { OFFER } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

export const offerRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/store/offers',
    cache: true,
    document: `query Offers($store_id: Int) { offers(storeId: $store_id) { ...RestOffer } } ${OFFER}`,
  },
  {
    method: 'POST',
    path: '/api/v1/store/offers',
    status: 201,
    envelope: 'message',
    document: `mutation CreateOffer($store_id: Int, $title: String!, $discount: Float!, $description: String,
        $starts_at: DateTimeISO, $ends_at: DateTimeISO, $image: String) {
      createOffer(input: { storeId: $store_id, title: $title, discount: $discount, description: $description,
          startsAt: $starts_at, endsAt: $ends_at, image: $image }) {
        message data: offer { ...RestOffer }
      }
    } ${OFFER}`,
  },
  {
    method: 'GET',
    path: '/api/v1/store/offers/:token',
    cache: true,
    document: `query Offer($token: String!) { offer(token: $token) { ...RestOffer } } ${OFFER}`,
  },
  {
    method: 'PUT',
    path: '/api/v1/store/offers/:id',
    envelope: 'message',
    document: `mutation UpdateOffer($id: Int!, $title: String, $discount: Float, $description: String,
        $starts_at: DateTimeISO, $ends_at: DateTimeISO, $image: String) {
      updateOffer(id: $id, input: { title: $title, discount: $discount, description: $description,
          startsAt: $starts_at, endsAt: $ends_at, image: $image }) {
        message data: offer { ...RestOffer }
      }
    } ${OFFER}`,
  },
  {
    method: 'DELETE',
    path: '/api/v1/store/offers/:id',
    envelope: 'message',
    document: `mutation DeleteOffer($id: Int!) { deleteOffer(id: $id) { message } }`,
  },
];
