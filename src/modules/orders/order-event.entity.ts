import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref, Unique } from '@mikro-orm/core';
import { CreatedAt } from '../../common/timestamped';
import { Order } from './order.entity';

export type OrderEventType = 'status' | 'driver_assigned' | 'driver_location';

/**
 * Every change of an order, numbered per order and written in the same transaction as the
 * change. The timeline, subscriptions and their resume all read from here.
 */
@Entity({ tableName: 'order_events' })
@Unique({ properties: ['order', 'seq'] })
export class OrderEvent {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @ManyToOne(() => Order, { ref: true, deleteRule: 'cascade' })
  order!: Ref<Order>;

  @Property()
  seq!: number;

  @Property({ length: 20 })
  type!: OrderEventType;

  /** The order's status after the event. */
  @Property({ length: 32 })
  status!: string;

  @Property({ type: 'jsonb', nullable: true })
  data?: Record<string, unknown> | null;

  @Index()
  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
