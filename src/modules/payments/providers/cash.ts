/**
 * Cash on delivery: nothing to authorise, nothing to call. The payment waits for the delivery,
 * where the driver's deliver step records the cash as collected.
 */
import { AuthorizeRequest, PaymentProvider, ProviderPayment } from '../../../common/payment-provider';

export class CashProvider implements PaymentProvider {
  readonly name = 'cash';
  readonly publicConfig = {};

  authorize(request: AuthorizeRequest): Promise<ProviderPayment> {
    return Promise.resolve({ ref: null, status: 'pending', amountCents: request.amountCents, currency: request.currency });
  }

  /** The payments module records the collection itself (in the delivery's transaction). */
  capture(): Promise<null> {
    return Promise.resolve(null);
  }

  release(): Promise<null> {
    return Promise.resolve(null);
  }

  retrieve(): Promise<never> {
    return Promise.reject(new Error('Cash payments have nothing to reconcile.'));
  }
}
