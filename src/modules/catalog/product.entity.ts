import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref, OptionalProps } from '@mikro-orm/core';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { toAmount } from '../../common/money';
import { Store } from '../stores/store.entity';
import { MenuCategory } from './menu-category.entity';

@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'products' })
// Home blocks walk these in order and stop after a few rows (trending, featured).
@Index({ name: 'products_trending_index', expression: 'create index "products_trending_index" on "products" ("order_count" desc, "id")' })
@Index({
  name: 'products_featured_index',
  expression: 'create index "products_featured_index" on "products" ("order_count" desc, "id") where is_featured',
})
/** Search reads a matching name's most ordered products from here (product-query.ts `productHitsSql`). */
@Index({
  name: 'products_search_name_index',
  expression: 'create index "products_search_name_index" on "products" (search_text(name), "order_count" desc, "id")',
})
@Index({
  name: 'products_name_trgm_index',
  expression: 'create index "products_name_trgm_index" on "products" using gin (search_text(name) gin_trgm_ops)',
})
export class Product {
  /** Computed getters, never given when creating. */
  [OptionalProps]?: 'menuCategoryId';

  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => Store, { ref: true, deleteRule: 'cascade' })
  @Index()
  store!: Ref<Store>;

  /** A category holding products cannot be deleted (409): no orphans, see docs/decisions.md. */
  @ManyToOne(() => MenuCategory, { ref: true, nullable: true, deleteRule: 'no action' })
  @Index()
  menuCategory?: Ref<MenuCategory> | null;

  @Field()
  @Property({ length: 200 })
  name!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Property()
  priceCents!: number;

  @Field(() => String, { nullable: true })
  @Property({ length: 500, nullable: true })
  image?: string | null;

  @Field(() => Boolean)
  @Property({ default: false })
  isFeatured: boolean & Opt = false;

  @Field(() => Boolean)
  @Property({ default: true })
  isActive: boolean & Opt = true;

  @Field(() => Int)
  @Property({ default: 0 })
  sortOrder: number & Opt = 0;

  /** Times ordered, kept up to date by the orders module; ranks trending products. */
  @Property({ default: 0 })
  orderCount: number & Opt = 0;

  @Field(() => Float)
  get price(): number & Opt {
    return toAmount(this.priceCents);
  }

  @Field(() => Int)
  get storeId(): number & Opt {
    return this.store.id;
  }

  @Field(() => Int, { nullable: true })
  get menuCategoryId(): number | null {
    return this.menuCategory?.id ?? null;
  }
}
