/**
 * Orders over REST: checkout, list and detail (spec §4.3), accept and reject (§4.2), and the
 * lifecycle steps the spec leaves out (docs/decisions.md).
 */
import { STORE_DETAIL_FRAGMENTS } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

const ITEM = `product_id: productId product_name: productName quantity base_price: basePrice total_price: totalPrice`;

export const ORDER_SUMMARY = `
  fragment RestOrderSummary on Order {
    id status subtotal total created_at: createdAt
    store { id name logo }
    items { ${ITEM} }
  }`;

export const ORDER_DETAIL = `
  fragment RestOrderDetail on Order {
    id status subtotal delivery_fee: deliveryFee discount total promo_code: promoCode
    created_at: createdAt rejection_reason: rejectionReason rejection_note: rejectionNote
    last_event_seq: lastEventSeq
    store { ...RestStoreDetail }
    user_address: deliveryAddress { label line1 line2 city latitude longitude instructions }
    driver { id name phone latitude longitude }
    timeline { status at }
    items {
      ${ITEM} unit_price: unitPrice special_instructions: specialInstructions
      options { id name price }
      supplements { id name price }
    }
  }
  ${STORE_DETAIL_FRAGMENTS}`;

const ACTION = `{ message data: order { order_id: id status } }`;

/** A lifecycle step: POST without a body, answered with the new status. */
const step = (path: string, mutation: string): RestRoute => ({
  method: 'POST',
  path,
  auth: true,
  envelope: 'message',
  document: `mutation Step($id: Int!) { ${mutation}(id: $id) ${ACTION} }`,
});

export const orderRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/customer/orders',
    auth: true,
    status: 201,
    envelope: 'message',
    bodyVariable: 'input',
    headers: { idempotency_key: 'idempotency-key' },
    document: `mutation PlaceOrder($input: CheckoutInput!, $idempotency_key: String) {
      placeOrder(input: $input, idempotencyKey: $idempotency_key) {
        message data: placed { order_id: orderId status total }
      }
    }`,
  },
  {
    method: 'GET',
    path: '/api/v1/customer/orders',
    auth: true,
    document: `query MyOrders { myOrders { ...RestOrderSummary } } ${ORDER_SUMMARY}`,
  },
  {
    method: 'GET',
    path: '/api/v1/customer/orders/:id',
    auth: true,
    document: `query MyOrder($id: Int!) { myOrder(id: $id) { ...RestOrderDetail } } ${ORDER_DETAIL}`,
  },
  step('/api/v1/customer/orders/:id/cancel', 'cancelOrder'),
  {
    method: 'GET',
    path: '/api/v1/store/orders',
    auth: true,
    document: `query StoreOrders($store_id: Int, $status: String) {
      storeOrders(storeId: $store_id, status: $status) { ...RestOrderDetail }
    } ${ORDER_DETAIL}`,
  },
  step('/api/v1/store/orders/:id/accept', 'acceptOrder'),
  {
    method: 'POST',
    path: '/api/v1/store/orders/:id/reject',
    auth: true,
    envelope: 'message',
    document: `mutation Reject($id: Int!, $rejection_reason: String!, $rejection_note: String) {
      rejectOrder(id: $id, input: { rejectionReason: $rejection_reason, rejectionNote: $rejection_note }) ${ACTION}
    }`,
  },
  step('/api/v1/store/orders/:id/preparing', 'startPreparingOrder'),
  step('/api/v1/store/orders/:id/ready', 'markOrderReady'),
  {
    method: 'GET',
    path: '/api/v1/driver/me',
    auth: true,
    document: `query DriverProfile { driverProfile { id is_online: isOnline latitude longitude location_updated_at: locationUpdatedAt } }`,
  },
  {
    method: 'POST',
    path: '/api/v1/driver/online',
    auth: true,
    document: `mutation GoOnline { goOnline { id is_online: isOnline latitude longitude } }`,
  },
  {
    method: 'POST',
    path: '/api/v1/driver/offline',
    auth: true,
    document: `mutation GoOffline { goOffline { id is_online: isOnline latitude longitude } }`,
  },
  {
    method: 'POST',
    path: '/api/v1/driver/location',
    auth: true,
    document: `mutation Location($latitude: Float!, $longitude: Float!) {
      reportDriverLocation(position: { latitude: $latitude, longitude: $longitude }) { id is_online: isOnline latitude longitude }
    }`,
  },
  {
    method: 'GET',
    path: '/api/v1/driver/orders',
    auth: true,
    document: `query DriverOrders { driverOrders { ...RestOrderDetail } } ${ORDER_DETAIL}`,
  },
  step('/api/v1/driver/orders/:id/pickup', 'pickUpOrder'),
  step('/api/v1/driver/orders/:id/deliver', 'deliverOrder'),
];
