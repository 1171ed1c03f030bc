import { Entity, Index, ManyToOne, PrimaryKey, PrimaryKeyProp, Property, Opt, Ref } from '@mikro-orm/core';
import { Timestamped } from '../../common/timestamped';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { toAmount } from '../../common/money';
import { UserAddress } from '../addresses/address.entity';
import { Driver } from '../drivers/driver.entity';
import { PromoCode } from '../promos/promo-code.entity';
import { Store } from '../stores/store.entity';
import { User } from '../users/user.entity';
import type { OrderStatus } from './order-status';

/** An `orders` row as `update ... returning *` answers it (for `em.map` into the identity map). */
export type OrderRow = Record<string, unknown> & { id: number };

/**
 * An order from one store. Amounts are computed by the server at checkout and frozen; the
 * delivery address is copied so that editing a saved address never rewrites history.
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'orders' })
@Index({ properties: ['user', 'createdAt'] })
@Index({ properties: ['store', 'status'] })
@Index({ properties: ['driver', 'status'] })
@Index({
  name: 'orders_pending_index',
  expression: `create index "orders_pending_index" on "orders" ("created_at") where status = 'pending_acceptance'`,
})
export class Order extends Timestamped {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { ref: true, deleteRule: 'restrict' })
  user!: Ref<User>;

  @ManyToOne(() => Store, { ref: true, deleteRule: 'restrict' })
  store!: Ref<Store>;

  @ManyToOne(() => UserAddress, { ref: true, nullable: true, deleteRule: 'set null' })
  address?: Ref<UserAddress> | null;

  @Field(() => String)
  @Property({ length: 32 })
  status!: OrderStatus;

  @Property()
  subtotalCents!: number;

  @Property()
  deliveryFeeCents!: number;

  @Property({ default: 0 })
  discountCents: number & Opt = 0;

  @Property()
  totalCents!: number;

  @ManyToOne(() => PromoCode, { ref: true, nullable: true, deleteRule: 'set null' })
  promo?: Ref<PromoCode> | null;

  @Field(() => String, { nullable: true })
  @Property({ length: 50, nullable: true })
  promoCode?: string | null;

  @ManyToOne(() => Driver, { ref: true, nullable: true, deleteRule: 'set null' })
  driver?: Ref<Driver> | null;

  @Field(() => String, { nullable: true })
  @Property({ length: 50, nullable: true })
  rejectionReason?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ length: 500, nullable: true })
  rejectionNote?: string | null;

  // The delivery address as it was at checkout.
  @Property({ length: 50 })
  addressLabel!: string;

  @Property({ length: 255 })
  addressLine1!: string;

  @Property({ length: 255, nullable: true })
  addressLine2?: string | null;

  @Property({ length: 100, nullable: true })
  addressCity?: string | null;

  @Property({ type: 'double' })
  addressLatitude!: number;

  @Property({ type: 'double' })
  addressLongitude!: number;

  @Property({ length: 500, nullable: true })
  addressInstructions?: string | null;

  /** The sequence number of the order's latest event (events are numbered 1, 2, 3...). */
  @Field(() => Int)
  @Property({ default: 0 })
  lastEventSeq: number & Opt = 0;

  @Field(() => Float)
  get subtotal(): number & Opt {
    return toAmount(this.subtotalCents);
  }

  @Field(() => Float)
  get deliveryFee(): number & Opt {
    return toAmount(this.deliveryFeeCents);
  }

  @Field(() => Float)
  get discount(): number & Opt {
    return toAmount(this.discountCents);
  }

  @Field(() => Float)
  get total(): number & Opt {
    return toAmount(this.totalCents);
  }
}

@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'order_items' })
export class OrderItem {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Order, { ref: true, deleteRule: 'cascade' })
  @Index()
  order!: Ref<Order>;

  /** Kept when the product is later deleted: the name and prices are copied below. */
  @Field(() => Int, { nullable: true })
  @Property({ type: 'integer', nullable: true })
  productId?: number | null;

  @Field()
  @Property({ length: 200 })
  productName!: string;

  @Field(() => Int)
  @Property()
  quantity!: number;

  @Property()
  basePriceCents!: number;

  /** Base price plus options and supplements, for one unit. */
  @Property()
  unitPriceCents!: number;

  @Property()
  totalPriceCents!: number;

  @Field(() => String, { nullable: true })
  @Property({ length: 500, nullable: true })
  specialInstructions?: string | null;

  @Field(() => Float)
  get basePrice(): number & Opt {
    return toAmount(this.basePriceCents);
  }

  @Field(() => Float)
  get unitPrice(): number & Opt {
    return toAmount(this.unitPriceCents);
  }

  @Field(() => Float)
  get totalPrice(): number & Opt {
    return toAmount(this.totalPriceCents);
  }
}

/** A chosen option value or supplement of an item, as priced at checkout. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'order_item_extras' })
export class OrderItemExtra {
  [PrimaryKeyProp]?: 'rowId';

  @PrimaryKey({ autoincrement: true })
  rowId!: number;

  @ManyToOne(() => OrderItem, { ref: true, deleteRule: 'cascade' })
  @Index()
  item!: Ref<OrderItem>;

  /** 'option' (a ProductOptionValue) or 'supplement' (a ProductSupplement). */
  @Property({ length: 20 })
  kind!: 'option' | 'supplement';

  @Field(() => Int, { description: 'The ProductOptionValue or ProductSupplement id.' })
  @Property()
  id!: number;

  @Field()
  @Property({ length: 150 })
  name!: string;

  @Property()
  priceCents!: number;

  @Field(() => Float)
  get price(): number & Opt {
    return toAmount(this.priceCents);
  }
}
