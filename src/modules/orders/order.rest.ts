/**
 * Orders over REST: checkout, list and detail (spec §4.3), accept and reject (§4.2), and the
 * lifecycle steps the spec leaves out (docs/decisions.md). The driver app's rows are in
 * drivers/driver.rest.ts.
 */
import { ORDER_ACTION, ORDER_DETAIL, ORDER_SUMMARY, orderStep, PAGE_META } from '../../rest/fragments';
import { RestRoute } from '../../rest/route';

export const orderRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/customer/orders',
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
    document: `query MyOrders { myOrders { ...RestOrderSummary } } ${ORDER_SUMMARY}`,
  },
  {
    method: 'GET',
    path: '/api/v1/customer/orders/:id',
    document: `query MyOrder($id: Int!) { myOrder(id: $id) { ...RestOrderDetail } } ${ORDER_DETAIL}`,
  },
  orderStep('/api/v1/customer/orders/:id/cancel', 'cancelOrder'),
  {
    method: 'GET',
    path: '/api/v1/store/orders',
    document: `query StoreOrders($store_id: Int, $status: String, $page: Int, $per_page: Int) {
      storeOrderPage(storeId: $store_id, status: $status, page: $page, perPage: $per_page) {
        orders { ...RestOrderDetail } meta { ...RestPageMeta }
      }
    } ${ORDER_DETAIL} ${PAGE_META}`,
  },
  orderStep('/api/v1/store/orders/:id/accept', 'acceptOrder'),
  {
    method: 'POST',
    path: '/api/v1/store/orders/:id/reject',
    envelope: 'message',
    document: `mutation Reject($id: Int!, $rejection_reason: String!, $rejection_note: String) {
      rejectOrder(id: $id, input: { rejectionReason: $rejection_reason, rejectionNote: $rejection_note }) ${ORDER_ACTION}
    }`,
  },
  orderStep('/api/v1/store/orders/:id/preparing', 'startPreparingOrder'),
  orderStep('/api/v1/store/orders/:id/ready', 'markOrderReady'),
];
