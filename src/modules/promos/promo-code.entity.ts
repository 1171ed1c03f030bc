import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref, Unique } from '@mikro-orm/core';
import { CreatedAt } from '../../common/timestamped';
import { Store } from '../stores/store.entity';
import { User } from '../users/user.entity';

/**
 * A promo code: a percentage or a fixed amount off the subtotal, within a window, above a
 * minimum subtotal, with total and per-customer limits. `store` null means any store.
 */
@Entity({ tableName: 'promo_codes' })
export class PromoCode {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  /** Upper case; customers type it in any case. */
  @Property({ length: 50, unique: true })
  code!: string;

  @Property({ length: 255, nullable: true })
  description?: string | null;

  /** 'percentage' (percentOff) or 'fixed' (amountOffCents). */
  @Property({ length: 20 })
  discountType!: 'percentage' | 'fixed';

  @Property({ type: 'double', nullable: true })
  percentOff?: number | null;

  @Property({ type: 'integer', nullable: true })
  amountOffCents?: number | null;

  /** Caps a percentage discount. */
  @Property({ type: 'integer', nullable: true })
  maxDiscountCents?: number | null;

  @Property({ default: 0 })
  minSubtotalCents: number & Opt = 0;

  @ManyToOne(() => Store, { ref: true, nullable: true, deleteRule: 'cascade' })
  store?: Ref<Store> | null;

  @Property({ type: 'timestamptz', nullable: true })
  startsAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  endsAt?: Date | null;

  /** Redemptions allowed in all; null is unlimited. */
  @Property({ type: 'integer', nullable: true })
  maxUses?: number | null;

  @Property({ type: 'integer', nullable: true, default: 1 })
  maxUsesPerCustomer?: number | null = 1;

  @Property({ default: 0 })
  usedCount: number & Opt = 0;

  @Property({ default: true })
  isActive: boolean & Opt = true;
}

/** One use of a promo code by a customer on an order. */
@Entity({ tableName: 'promo_redemptions' })
@Index({ properties: ['promo', 'user'] })
@Unique({ properties: ['orderId'] })
export class PromoRedemption {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @ManyToOne(() => PromoCode, { ref: true, deleteRule: 'cascade' })
  promo!: Ref<PromoCode>;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade' })
  user!: Ref<User>;

  /** The order that used it (one redemption per order). */
  @Property()
  orderId!: number;

  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
