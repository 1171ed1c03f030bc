import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref } from '@mikro-orm/core';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { toAmount } from '../../common/money';
import { Product } from './product.entity';

/**
 * A choice the customer makes about a product ("Size"): `required` groups need at least
 * `minSelect` values (at least 1), and no group takes more than `maxSelect`.
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'product_option_groups' })
export class ProductOptionGroup {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Product, { ref: true, deleteRule: 'cascade' })
  @Index()
  product!: Ref<Product>;

  @Field()
  @Property({ length: 150 })
  name!: string;

  @Field(() => Boolean)
  @Property({ default: false })
  isRequired: boolean & Opt = false;

  @Field(() => Int)
  @Property({ default: 0 })
  minSelect: number & Opt = 0;

  @Field(() => Int)
  @Property({ default: 1 })
  maxSelect: number & Opt = 1;

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;
}

/**
 * What an option value and a supplement share: a name and a price added to the product's,
 * in display order. Not a table of its own.
 */
@ObjectType({ simpleResolvers: true })
@Entity({ abstract: true })
export abstract class PricedChoice {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @Field()
  @Property({ length: 150 })
  name!: string;

  @Property({ default: 0 })
  priceCents: number & Opt = 0;

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;

  @Field(() => Float, { description: 'Added to the product price.' })
  get price(): number & Opt {
    return toAmount(this.priceCents);
  }
}

/** One value of an option group ("Large", +2.00): the spec's ProductOptionValue. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'product_option_values' })
export class ProductOptionValue extends PricedChoice {
  @ManyToOne(() => ProductOptionGroup, { ref: true, deleteRule: 'cascade' })
  @Index()
  group!: Ref<ProductOptionGroup>;
}

/** An extra that can be added to a product ("Extra cheese", +1.50): ProductSupplement. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'product_supplements' })
export class ProductSupplement extends PricedChoice {
  @ManyToOne(() => Product, { ref: true, deleteRule: 'cascade' })
  @Index()
  product!: Ref<Product>;
}
