/** The driver app over REST (not in the spec; docs/decisions.md): profile, availability, position, orders. */
import { ORDER_ACTION, ORDER_DETAIL, orderStep } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

export const driverRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/driver/me',
    document: `query DriverProfile { driverProfile { id is_online: isOnline latitude longitude location_updated_at: locationUpdatedAt } }`,
  },
  {
    method: 'POST',
    path: '/api/v1/driver/online',
    document: `mutation GoOnline { goOnline { id is_online: isOnline latitude longitude } }`,
  },
  {
    method: 'POST',
    path: '/api/v1/driver/offline',
    document: `mutation GoOffline { goOffline { id is_online: isOnline latitude longitude } }`,
  },
  {
    method: 'POST',
    path: '/api/v1/driver/location',
    document: `mutation Location($latitude: Float!, $longitude: Float!) {
      reportDriverLocation(position: { latitude: $latitude, longitude: $longitude }) { id is_online: isOnline latitude longitude }
    }`,
  },
  {
    method: 'GET',
    path: '/api/v1/driver/orders',
    document: `query DriverOrders { driverOrders { ...RestOrderDetail } } ${ORDER_DETAIL}`,
  },
  orderStep('/api/v1/driver/orders/:id/pickup', 'pickUpOrder'),
  {
    method: 'POST',
    path: '/api/v1/driver/orders/:id/deliver',
    envelope: 'message',
    document: `mutation Deliver($id: Int!, $collect_cash: Boolean) { deliverOrder(id: $id, collectCash: $collect_cash) ${ORDER_ACTION} }`,
  },
];
