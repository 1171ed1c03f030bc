import { Entity, PrimaryKey, Property, Opt } from '@mikro-orm/core';

/**
 * Provider events already applied: an event id is recorded in the transaction that applies it,
 * so a replayed or re-sent event changes nothing.
 */
@Entity({ tableName: 'payment_webhook_events' })
export class PaymentWebhookEvent {
  @PrimaryKey({ length: 30 })
  provider!: string;

  @PrimaryKey({ length: 255 })
  eventId!: string;

  @Property({ length: 100 })
  type!: string;

  /** applied, ignored (nothing to change or not ours), refused (amount or currency mismatch). */
  @Property({ length: 20 })
  outcome!: string;

  @Property({ type: 'integer', nullable: true })
  paymentId?: number | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  receivedAt: Date & Opt = new Date();
}
