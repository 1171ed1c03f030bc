/**
 * Cards through Stripe: one PaymentIntent per payment, `capture_method: manual` (authorised at
 * order time, captured at delivery, cancelled when the order ends without food), our ids in
 * metadata, and idempotency keys derived from the payment so a retry never makes a second one.
 */
import Stripe from 'stripe';
import type { PaymentsConfig } from '../../../config';
import { AuthorizeRequest, PaymentProvider, ProviderError, ProviderEvent, ProviderPayment } from '../../../common/payment-provider';

type StripeConfig = NonNullable<PaymentsConfig['stripe']>;

export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly publicConfig: Record<string, string>;
  private readonly stripe: Stripe;

  constructor(private readonly config: StripeConfig) {
    this.publicConfig = { publishableKey: config.publishableKey };
    const api = config.apiUrl ? new URL(config.apiUrl) : undefined;
    this.stripe = new Stripe(config.secretKey, {
      timeout: config.timeoutMs,
      maxNetworkRetries: config.maxNetworkRetries,
      telemetry: false,
      appInfo: { name: 'delivery-platform-service' },
      ...(api && {
        host: api.hostname,
        port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)),
        protocol: api.protocol.replace(':', '') as 'http' | 'https',
      }),
    });
  }

  async authorize(request: AuthorizeRequest): Promise<ProviderPayment> {
    const intent = await this.call(() =>
      this.stripe.paymentIntents.create(
        {
          amount: request.amountCents,
          currency: request.currency,
          capture_method: 'manual',
          allowed_payment_method_types: ['card'],
          metadata: { order_id: String(request.orderId), payment_id: String(request.paymentId) },
          description: `Order ${request.orderId}`,
        },
        { idempotencyKey: request.idempotencyKey },
      ),
    );
    return fromIntent(intent);
  }

  async capture(ref: string | null, amountCents: number, idempotencyKey: string): Promise<ProviderPayment> {
    if (!ref) throw new ProviderError('The payment has no PaymentIntent to capture.', false);
    return this.settle(ref, () => this.stripe.paymentIntents.capture(ref, { amount_to_capture: amountCents }, { idempotencyKey }));
  }

  async release(ref: string | null, idempotencyKey: string): Promise<ProviderPayment> {
    if (!ref) throw new ProviderError('The payment has no PaymentIntent to cancel.', false);
    return this.settle(ref, () => this.stripe.paymentIntents.cancel(ref, {}, { idempotencyKey }));
  }

  async retrieve(ref: string): Promise<ProviderPayment> {
    return fromIntent(await this.call(() => this.stripe.paymentIntents.retrieve(ref)));
  }

  /**
   * Checks the signature and the timestamp's age both ways (Stripe's own check refuses only old
   * ones), then the event's shape: a signed body that is not an event is refused, not guessed at.
   */
  parseEvent(rawBody: Buffer, header: (name: string) => string | undefined): ProviderEvent {
    const signature = header('stripe-signature') ?? '';
    const tolerance = this.config.webhookToleranceSeconds;
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.config.webhookSecret, tolerance);
    } catch (error) {
      throw new ProviderError(`The Stripe signature is not valid: ${(error as Error).message}`, false, 'bad_signature');
    }
    const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature)?.[1]);
    if (!(signedAt <= Date.now() / 1000 + tolerance)) {
      throw new ProviderError(`The Stripe signature's timestamp ${signedAt} is in the future.`, false, 'bad_signature');
    }
    const shape = event as unknown as { id?: unknown; type?: unknown; data?: { object?: unknown } } | null;
    const object = shape?.data?.object;
    if (typeof shape?.id !== 'string' || typeof shape.type !== 'string' || typeof object !== 'object' || object === null) {
      throw new ProviderError('The Stripe event is malformed: it needs a string id and type, and data.object.', false, 'malformed_event');
    }
    const kind = (object as { object?: unknown }).object;
    if (kind === 'payment_intent') return { id: event.id, type: event.type, payment: fromIntent(object as Stripe.PaymentIntent) };
    if (kind === 'charge' && event.type.startsWith('charge.refund')) {
      return { id: event.id, type: event.type, payment: fromCharge(object as Stripe.Charge) };
    }
    return { id: event.id, type: event.type, payment: null };
  }

  /**
   * Capture and cancel are asked once per payment (idempotency key); when Stripe says the intent
   * is no longer in a state that allows it (already captured, cancelled, expired), the intent's
   * own state is the answer.
   */
  private async settle(ref: string, run: () => Promise<Stripe.PaymentIntent>): Promise<ProviderPayment> {
    try {
      return fromIntent(await this.call(run));
    } catch (error) {
      if (error instanceof ProviderError && error.code === 'payment_intent_unexpected_state') return this.retrieve(ref);
      throw error;
    }
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const e = error as { type?: string; message?: string; code?: string; statusCode?: number };
      const transient =
        ['StripeConnectionError', 'StripeAPIError', 'StripeRateLimitError', 'StripeIdempotencyError'].includes(e.type ?? '') ||
        (e.statusCode ?? 0) >= 500;
      throw new ProviderError(`Stripe: ${e.message ?? 'request failed'}`, transient, e.code);
    }
  }
}

function fromIntent(intent: Stripe.PaymentIntent): ProviderPayment {
  const error = intent.last_payment_error;
  return {
    ref: intent.id,
    status: intentStatus(intent),
    amountCents: intent.amount,
    currency: intent.currency,
    clientSecret: intent.client_secret,
    amountCapturedCents: intent.amount_received ?? 0,
    failureCode: error?.decline_code ?? error?.code ?? null,
    failureMessage: error?.message ?? null,
    ...ourIds(intent.metadata),
  };
}

/** Our ids as we stored them in the provider's metadata (null when absent). */
function ourIds(metadata: Stripe.Metadata | null | undefined): Pick<ProviderPayment, 'paymentId' | 'orderId'> {
  return { paymentId: Number(metadata?.payment_id) || null, orderId: Number(metadata?.order_id) || null };
}

function intentStatus(intent: Stripe.PaymentIntent): ProviderPayment['status'] {
  switch (intent.status) {
    case 'requires_capture':
      return 'authorized';
    case 'requires_action':
      return 'requires_action';
    case 'succeeded':
      return 'captured';
    case 'canceled':
      return 'released';
    case 'requires_payment_method':
      return intent.last_payment_error ? 'failed' : 'pending';
    default: // requires_confirmation, processing
      return 'pending';
  }
}

/** A refund event: the charge tells how much of the captured amount went back. */
function fromCharge(charge: Stripe.Charge): ProviderPayment {
  const ref = typeof charge.payment_intent === 'string' ? charge.payment_intent : (charge.payment_intent?.id ?? null);
  return {
    ref,
    status: charge.amount_refunded >= charge.amount_captured ? 'refunded' : 'partially_refunded',
    amountCents: charge.amount,
    currency: charge.currency,
    amountCapturedCents: charge.amount_captured,
    amountRefundedCents: charge.amount_refunded,
    ...ourIds(charge.metadata),
  };
}
