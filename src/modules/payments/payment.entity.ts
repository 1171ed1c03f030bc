import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref, Unique } from '@mikro-orm/core';
import type { PaymentStatus } from '../../common/payment-provider';
import { Order } from '../orders/order.entity';
import { PaymentMethod } from './payment-method.entity';

/**
 * One attempt to pay an order with one method. An order has at most one live payment (pending,
 * requires_action or authorized; a partial unique index holds it); failed or replaced attempts
 * stay as history. Money is in minor units of `currency`.
 *
 * `captureRequestedAt` / `releaseRequestedAt` record, in the order's own transaction, that the
 * provider must be asked to take or give back the money; the call happens after commit and is
 * retried by the reconciliation job until the provider confirms (docs/decisions.md).
 */
@Entity({ tableName: 'payments' })
@Index({ properties: ['order'] })
@Index({
  name: 'payments_live_per_order',
  expression: `create unique index "payments_live_per_order" on "payments" ("order_id") where status in ('pending', 'requires_action', 'authorized')`,
})
@Index({
  name: 'payments_unsettled_index',
  expression: `create index "payments_unsettled_index" on "payments" ("updated_at") where status in ('pending', 'requires_action', 'authorized', 'capture_failed') or capture_requested_at is not null or release_requested_at is not null`,
})
export class Payment {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Order, { ref: true, deleteRule: 'cascade' })
  order!: Ref<Order>;

  @ManyToOne(() => PaymentMethod, { ref: true, deleteRule: 'restrict' })
  method!: Ref<PaymentMethod>;

  @Property({ length: 30 })
  provider!: string;

  @Property({ length: 30 })
  status!: PaymentStatus;

  @Property()
  amountCents!: number;

  @Property({ length: 3 })
  currency!: string;

  /** The provider's id (Stripe PaymentIntent); null for cash and until the provider answered. */
  @Unique()
  @Property({ length: 255, nullable: true })
  providerRef?: string | null;

  /** What the app's SDK needs to confirm a card; kept so a retried start answers the same. */
  @Property({ length: 255, nullable: true })
  clientSecret?: string | null;

  @Property({ default: 0 })
  amountCapturedCents: number & Opt = 0;

  @Property({ default: 0 })
  amountRefundedCents: number & Opt = 0;

  @Property({ length: 100, nullable: true })
  failureCode?: string | null;

  @Property({ length: 500, nullable: true })
  failureMessage?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  captureRequestedAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  releaseRequestedAt?: Date | null;

  /** Provider calls that failed for this payment (capture/release retries); for operators. */
  @Property({ default: 0 })
  settleAttempts: number & Opt = 0;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
