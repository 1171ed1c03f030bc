/** Payments over REST (spec §4.4; paths recorded in docs/decisions.md). */
import { RestRoute } from '../../rest/route';

export const PAYMENT_METHOD = `fragment RestPaymentMethod on PaymentMethod { id code name kind icon }`;

export const paymentRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/payment-methods',
    cache: true,
    document: `query PaymentMethods { paymentMethods { ...RestPaymentMethod } } ${PAYMENT_METHOD}`,
  },
  {
    method: 'POST',
    path: '/api/v1/payments',
    status: 201,
    envelope: 'message',
    headers: { idempotency_key: 'idempotency-key' },
    document: `mutation StartPayment($order_id: Int!, $payment_method_id: Int!, $idempotency_key: String) {
      startPayment(input: { orderId: $order_id, paymentMethodId: $payment_method_id }, idempotencyKey: $idempotency_key) {
        message
        data: payment {
          payment_id: paymentId order_id: orderId status amount currency
          method { ...RestPaymentMethod }
          next_action: nextAction requires_action: requiresAction client_secret: clientSecret publishable_key: publishableKey
        }
      }
    } ${PAYMENT_METHOD}`,
  },
];
