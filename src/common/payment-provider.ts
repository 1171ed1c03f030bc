/**
 * The one interface every way of paying implements (cash, Stripe cards; a new gateway is a new
 * file in modules/payments/providers and a config entry). It lives on the ground floor because
 * the request context's services carry the configured providers, and the context knows no module.
 *
 * Providers only talk to the outside world; they never touch the database. What they answer is
 * applied by the payments module, the same way whether it came from a call, a webhook or the
 * reconciliation job.
 */

/** Our payment states (docs/decisions.md, "Payments"). */
export const PAYMENT_STATUSES = [
  'pending', // waiting for the customer (card) or for the delivery (cash)
  'requires_action', // the card needs the customer's bank (3-D Secure)
  'failed', // the card was declined; the order may be paid again
  'authorized', // the card's money is held, not taken
  'capture_failed', // delivered, but the held money could not be taken
  'captured', // card money taken at delivery
  'collected', // cash handed to the driver at delivery
  'released', // the hold was cancelled (order rejected, expired, cancelled) — nothing taken
  'cancelled', // never authorised and no longer wanted (another method chosen, order ended)
  'partially_refunded',
  'refunded',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** What a provider reports about one payment. */
export interface ProviderPayment {
  /** The provider's id (a PaymentIntent id); null for cash. */
  ref: string | null;
  status: PaymentStatus;
  amountCents: number;
  currency: string;
  /** What the app's SDK needs to confirm (a PaymentIntent client secret). */
  clientSecret?: string | null;
  amountCapturedCents?: number;
  amountRefundedCents?: number;
  failureCode?: string | null;
  failureMessage?: string | null;
  /** Our payment id as the provider stored it (metadata), to find a payment whose ref we lost. */
  paymentId?: number | null;
  /** Our order id as the provider stored it (metadata): an event naming another order is not attached. */
  orderId?: number | null;
}

export interface AuthorizeRequest {
  paymentId: number;
  orderId: number;
  amountCents: number;
  currency: string;
  /** Derived from the payment: a retry never creates a second authorisation. */
  idempotencyKey: string;
}

/** A provider event (webhook) after its signature was checked. */
export interface ProviderEvent {
  id: string;
  type: string;
  /** The payment the event is about, as the provider sees it now; null when we do not handle the type. */
  payment: ProviderPayment | null;
}

/** A provider call that failed. `transient`: worth retrying later (network, 5xx, timeout). */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface PaymentProvider {
  /** The `provider` of payment methods this serves ('cash', 'stripe'). */
  readonly name: string;
  /** Public values the app needs with the answer (Stripe's publishable key). */
  readonly publicConfig: Record<string, string>;
  authorize(request: AuthorizeRequest): Promise<ProviderPayment>;
  capture(ref: string | null, amountCents: number, idempotencyKey: string): Promise<ProviderPayment | null>;
  release(ref: string | null, idempotencyKey: string): Promise<ProviderPayment | null>;
  /** The payment as the provider sees it now (reconciliation). */
  retrieve(ref: string): Promise<ProviderPayment>;
  /** Checks a webhook's signature on the raw body; throws ProviderError (not transient) when it is bad. */
  parseEvent?(rawBody: Buffer, header: (name: string) => string | undefined): ProviderEvent;
}

/** The configured providers by name; a method whose provider is missing is not offered. */
export type PaymentProviders = ReadonlyMap<string, PaymentProvider>;
