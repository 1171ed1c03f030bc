import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref } from '@mikro-orm/core';
import type { PaymentStatus } from '../../common/payment-provider';
import { CreatedAt } from '../../common/timestamped';
import { Payment } from './payment.entity';

/**
 * The payment's history: one row per news of it (authorised, captured, collected, released,
 * refunded...), written in the transaction that changed it. The order's own stream carries the
 * same news only while the order has not ended (docs/decisions.md, "Payment history").
 */
@Entity({ tableName: 'payment_events' })
@Index({ properties: ['payment', 'id'] })
export class PaymentEvent {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @ManyToOne(() => Payment, { ref: true, deleteRule: 'cascade', index: false })
  payment!: Ref<Payment>;

  @Property({ length: 30 })
  status!: PaymentStatus;

  /** The amount the news is about, in minor units (the refunded total for refunds). */
  @Property()
  amountCents!: number;

  /** What else was recorded with it (the driver's choice to collect cash, the payment it replaces). */
  @Property({ type: 'jsonb', nullable: true })
  data?: Record<string, unknown> | null;

  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
