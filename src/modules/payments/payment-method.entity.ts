import { Entity, PrimaryKey, Property, Opt, Unique } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';

/**
 * A way to pay the platform offers (spec §4.4). Rows are platform data (the migration adds cash
 * and card); a method is listed when it is active and its provider is configured.
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'payment_methods' })
export class PaymentMethod {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  /** Stable identifier for apps: 'card', 'cash'. */
  @Field()
  @Unique()
  @Property({ length: 30 })
  code!: string;

  @Field()
  @Property({ length: 100 })
  name!: string;

  /** What the app shows and does: 'card' (confirm with the provider's SDK) or 'cash'. */
  @Field()
  @Property({ length: 20 })
  kind!: 'card' | 'cash';

  /** The PaymentProvider that serves it ('stripe', 'cash'). */
  @Property({ length: 30 })
  provider!: string;

  @Field(() => String, { nullable: true, description: 'An icon name or URL.' })
  @Property({ type: 'text', nullable: true })
  icon?: string | null;

  @Property({ default: true })
  isActive: boolean & Opt = true;

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;
}
