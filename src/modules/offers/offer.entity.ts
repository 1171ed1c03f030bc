import { Entity, Index, ManyToOne, PrimaryKey, Property, Ref, OptionalProps } from '@mikro-orm/core';
import { Timestamped } from '../../common/timestamped';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { Store } from '../stores/store.entity';

/**
 * A promotional offer (spec §2.11): a store's, or global (no store) for the home banners.
 * Active while now is inside [startsAt, endsAt) (open ends allowed). `discount` is a
 * percentage (docs/decisions.md).
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'offers' })
@Index({ properties: ['store', 'endsAt'] })
export class Offer extends Timestamped {
  /** Computed getters, never given when creating. */
  [OptionalProps]?: 'storeId';

  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Store, { ref: true, nullable: true, deleteRule: 'cascade' })
  store?: Ref<Store> | null;

  @Field()
  @Property({ length: 150 })
  title!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => Float, { description: 'Percent off, 0 < discount <= 100.' })
  @Property({ type: 'double' })
  discount!: number;

  @Field({ description: 'Unique public token used to fetch one offer.' })
  @Property({ length: 32, unique: true })
  token!: string;

  @Field(() => String, { nullable: true })
  @Property({ length: 500, nullable: true })
  image?: string | null;

  @Field(() => Date, { nullable: true })
  @Property({ type: 'timestamptz', nullable: true })
  startsAt?: Date | null;

  @Field(() => Date, { nullable: true })
  @Property({ type: 'timestamptz', nullable: true })
  endsAt?: Date | null;

  @Field(() => Int, { nullable: true, description: 'Null for a global offer.' })
  get storeId(): number | null {
    return this.store?.id ?? null;
  }
}
