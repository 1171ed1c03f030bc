import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref, OptionalProps } from '@mikro-orm/core';
import { Timestamped } from '../../common/timestamped';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { toAmount } from '../../common/money';
import { User } from '../users/user.entity';
import { StoreCategory } from './store-category.entity';
import { CoordinateField } from '../../common/coordinate-field';

@ObjectType({ simpleResolvers: true, description: 'A store customers order from.' })
@Entity({ tableName: 'stores' })
/** Covering and partial: nearby's count and rankings and the home blocks' nearest walk read only the index (store-query.ts, home-query.ts). */
@Index({
  name: 'stores_earth_index',
  expression:
    'create index "stores_earth_index" on "stores" using gist ("earth") include ("id", "delivery_radius_km", "rating", "rating_count", "order_count", "category_id", "free_delivery", "delivery_price_cents", "delivery_time") where is_active',
})
/**
 * The home blocks' walks in rating and in order-count order (home-query.ts): covering, so a walk
 * tests "delivers here" on index entries alone; and the largest radius of an active store.
 */
@Index({
  name: 'stores_rating_index',
  expression:
    'create index "stores_rating_index" on "stores" ("rating" desc, "rating_count" desc) include ("earth", "delivery_radius_km", "order_count", "id") where is_active',
})
@Index({
  name: 'stores_popularity_index',
  expression:
    'create index "stores_popularity_index" on "stores" ("order_count" desc, "rating" desc, "id") include ("earth", "delivery_radius_km", "rating_count") where is_active',
})
@Index({
  name: 'stores_delivery_radius_index',
  expression: 'create index "stores_delivery_radius_index" on "stores" ("delivery_radius_km") where is_active',
})
/** Search reads a matching name's best stores from here, index only (store-query.ts `storeHitsSql`). */
@Index({
  name: 'stores_search_name_index',
  expression:
    'create index "stores_search_name_index" on "stores" (search_text(name), "rating" desc, "id") include ("name") where is_active',
})
@Index({
  name: 'stores_name_trgm_index',
  expression: 'create index "stores_name_trgm_index" on "stores" using gin (search_text(name) gin_trgm_ops)',
})
export class Store extends Timestamped {
  /** Computed getters, never given when creating. */
  [OptionalProps]?: 'categoryId';

  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  /** The user who manages the store; operators assign it (docs/decisions.md). */
  @ManyToOne(() => User, { ref: true, nullable: true, deleteRule: 'set null' })
  @Index()
  owner?: Ref<User> | null;

  @ManyToOne(() => StoreCategory, { ref: true, nullable: true, deleteRule: 'set null' })
  @Index()
  category?: Ref<StoreCategory> | null;

  @Field()
  @Property({ length: 150 })
  name!: string;

  @Field()
  @Property({ length: 160, unique: true })
  slug!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ length: 500, nullable: true })
  logo?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ length: 500, nullable: true })
  image?: string | null;

  @Field()
  @Property({ length: 300 })
  address!: string;

  @CoordinateField()
  @Property({ type: 'double' })
  latitude!: number;

  @CoordinateField()
  @Property({ type: 'double' })
  longitude!: number;

  /**
   * The position as earthdistance's cube, computed by PostgreSQL: geo queries compare cubes
   * instead of calling ll_to_earth for every row. Never loaded into entities.
   */
  @Property({
    type: 'cube',
    generated: '(ll_to_earth(latitude, longitude)) stored',
    lazy: true,
    hidden: true,
    nullable: true,
    ignoreSchemaChanges: ['type', 'extra'],
  })
  earth?: string & Opt;

  /** At most MAX_DELIVERY_RADIUS_KM (checked on every write), so a geo box of that size finds every store that delivers. */
  @Field(() => Float, { description: 'Customers within this many kilometres can order.' })
  @Property({ type: 'double' })
  deliveryRadiusKm!: number;

  @Property()
  deliveryPriceCents!: number;

  @Field(() => Boolean)
  @Property({ default: false })
  freeDelivery: boolean & Opt = false;

  @Field(() => Int, { description: 'Typical minutes from order to door.' })
  @Property()
  deliveryTime!: number;

  @Field(() => Float, { description: 'Average rating from 0 to 5.' })
  @Property({ type: 'double', default: 0 })
  rating: number & Opt = 0;

  @Field(() => Int)
  @Property({ default: 0 })
  ratingCount: number & Opt = 0;

  /** Orders delivered, kept up to date by the orders module; ranks "popular near you". */
  @Property({ default: 0 })
  orderCount: number & Opt = 0;

  /** Indexed: "open now" walks the distinct zones in use (src/modules/stores/local-time.ts). */
  @Field({ description: 'IANA time zone the opening hours are in.' })
  @Index()
  @Property({ length: 64 })
  timezone!: string;

  @Field(() => Boolean)
  @Property({ default: true })
  isActive: boolean & Opt = true;

  /** Set by location-aware queries (nearby, homepage); null elsewhere. Not stored. */
  @Field(() => Float, { nullable: true, description: 'Kilometres from the point asked about.' })
  distanceKm?: number | null;

  @Field(() => Float, { description: 'Delivery fee; 0 when delivery is free.' })
  get deliveryPrice(): number & Opt {
    return this.freeDelivery ? 0 : toAmount(this.deliveryPriceCents);
  }

  @Field(() => Int, { nullable: true })
  get categoryId(): number | null {
    return this.category?.id ?? null;
  }
}
