import { Check, Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref, Unique } from '@mikro-orm/core';
import { CreatedAt } from '../../common/timestamped';
import { OrderEvent } from '../orders/order-event.entity';
import { Order } from '../orders/order.entity';
import { PaymentEvent } from '../payments/payment-event.entity';
import { User } from '../users/user.entity';

export type NotificationChannel = 'push' | 'whatsapp' | 'web_push';
export type NotificationStatus = 'pending' | 'sent' | 'failed' | 'skipped';

/**
 * The notification outbox: one row per (event, kind, channel, recipient device), written in the
 * transaction of the event (outbox.ts) and sent after commit by the worker of any instance
 * (worker.ts). The event is the order's, or a payment's once the order's stream has ended
 * (payment-ledger.ts). The unique key is what keeps two writers from writing one twice (its
 * order first: it also serves the order's reads, the sent log and the reminders').
 */
@Entity({ tableName: 'notification_outbox' })
@Unique({
  name: 'notification_outbox_unique',
  expression: `create unique index "notification_outbox_unique" on "notification_outbox" ("order_id", "event_id", "payment_event_id", "kind", "channel", "target") nulls not distinct`,
})
@Check({ name: 'notification_outbox_one_source', expression: '(event_id is null) <> (payment_event_id is null)' })
@Index({
  name: 'notification_outbox_pending_index',
  expression: `create index "notification_outbox_pending_index" on "notification_outbox" ("due_at") where status = 'pending'`,
})
export class NotificationOutbox {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  /**
   * The cause, in the statement that writes it: no foreign key to the order event, the payment
   * event, the order or the user (each check was a query and a key-share lock per row, the owner's
   * users row locked by every checkout of the store; they checked what the statement had just
   * written or read: docs/decisions.md, Notifications).
   */
  @ManyToOne(() => OrderEvent, { ref: true, nullable: true, createForeignKeyConstraint: false })
  event?: Ref<OrderEvent> | null;

  @ManyToOne(() => PaymentEvent, { ref: true, nullable: true, createForeignKeyConstraint: false })
  paymentEvent?: Ref<PaymentEvent> | null;

  /** No foreign key either (an order's deletion leaves its rows: skipped if pending, then pruned); `notification_outbox_unique` leads with it for the order's reads. */
  @ManyToOne(() => Order, { ref: true, createForeignKeyConstraint: false })
  order!: Ref<Order>;

  /** What happened, for this recipient: new_order, order_accepted, ... (messages.ts). */
  @Property({ length: 32 })
  kind!: string;

  @ManyToOne(() => User, { ref: true, createForeignKeyConstraint: false })
  user!: Ref<User>;

  @Property({ length: 16 })
  channel!: NotificationChannel;

  /** The recipient's address on the channel: `device:<user_devices.id>`, `webpush:<id>` or `phone`. */
  @Property({ length: 64 })
  target!: string;

  @Property({ length: 16, default: 'pending' })
  status: NotificationStatus & Opt = 'pending';

  @Property({ default: 0 })
  attempts: number & Opt = 0;

  /** When the row is to be sent: at once, later (a reminder), or a retry's time. */
  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  dueAt: Date & Opt = new Date();

  /**
   * The end of a claim's lease (null: not claimed). No index holds it, so a claim, which sets it and
   * `attempts`, is a HOT update (the table keeps room on its pages for it: its fillfactor).
   */
  @Property({ type: 'timestamptz', nullable: true })
  leasedUntil?: Date | null;

  /** Why the last attempt failed, or why the row was given up or skipped. */
  @Property({ type: 'text', nullable: true })
  lastError?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  sentAt?: Date | null;

  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
