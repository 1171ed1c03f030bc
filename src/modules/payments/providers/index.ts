/** The configured payment providers: cash always, Stripe when its keys are set. */
import type { PaymentsConfig } from '../../../config';
import type { PaymentProvider, PaymentProviders } from '../../../common/payment-provider';
import { CashProvider } from './cash';
import { StripeProvider } from './stripe';

export function createPaymentProviders(config: PaymentsConfig): PaymentProviders {
  const providers: PaymentProvider[] = [new CashProvider()];
  if (config.stripe) providers.push(new StripeProvider(config.stripe));
  return new Map(providers.map((p) => [p.name, p]));
}
