import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref, OptionalProps } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { Product } from '../catalog/product.entity';
import { Store } from '../stores/store.entity';

/** A home-screen banner (spec §2.3); `redirectType` tells the app what a tap opens. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'ads' })
@Index({ properties: ['isActive', 'sortOrder'] })
export class Ad {
  /** Computed getters, never given when creating. */
  [OptionalProps]?: 'storeId' | 'productId';

  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Field()
  @Property({ length: 150 })
  title!: string;

  @Field(() => String, { description: 'image' })
  @Property({ length: 30, default: 'image' })
  type: string & Opt = 'image';

  @Field()
  @Property({ length: 500 })
  image!: string;

  @Field(() => String, { description: 'store_screen, product_screen or none' })
  @Property({ length: 30, default: 'none' })
  redirectType: string & Opt = 'none';

  @ManyToOne(() => Store, { ref: true, nullable: true, deleteRule: 'cascade' })
  store?: Ref<Store> | null;

  @ManyToOne(() => Product, { ref: true, nullable: true, deleteRule: 'cascade' })
  product?: Ref<Product> | null;

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;

  @Field(() => Boolean)
  @Property({ default: true })
  isActive: boolean & Opt = true;

  @Field(() => Date, { nullable: true })
  @Property({ type: 'timestamptz', nullable: true })
  startsAt?: Date | null;

  @Field(() => Date, { nullable: true })
  @Property({ type: 'timestamptz', nullable: true })
  endsAt?: Date | null;

  @Field(() => Int, { nullable: true })
  get storeId(): number | null {
    return this.store?.id ?? null;
  }

  @Field(() => Int, { nullable: true })
  get productId(): number | null {
    return this.product?.id ?? null;
  }
}
