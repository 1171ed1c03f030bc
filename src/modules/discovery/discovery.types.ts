import { Field, ObjectType } from 'type-graphql';
import { PageMeta } from '../../common/pagination';
import { Product } from '../catalog/product.entity';
import { Offer } from '../offers/offer.entity';
import { MainCategory } from '../stores/main-category.entity';
import { StoreCategory } from '../stores/store-category.entity';
import { Store } from '../stores/store.entity';

@ObjectType({ simpleResolvers: true })
export class StorePage {
  @Field(() => [Store])
  stores!: Store[];

  @Field(() => PageMeta)
  meta!: PageMeta;
}

/** The nine blocks of the home screen (spec §2.1). */
@ObjectType({ simpleResolvers: true })
export class Homepage {
  @Field(() => [MainCategory])
  mainCategories!: MainCategory[];

  @Field(() => [StoreCategory], { description: 'Quick-access store categories.' })
  categories!: StoreCategory[];

  @Field(() => [Offer], { description: 'Global active promotional banners.' })
  offers!: Offer[];

  @Field(() => [Product], { description: 'Newest products of stores that deliver here.' })
  products!: Product[];

  @Field(() => [Product])
  featuredProducts!: Product[];

  @Field(() => [Product], { description: 'Most ordered products of stores that deliver here.' })
  trendingProducts!: Product[];

  @Field(() => [Store])
  topRatedStores!: Store[];

  @Field(() => [Store])
  popularNearYou!: Store[];

  @Field(() => [Store], { description: 'Nearest stores that deliver here.' })
  stores!: Store[];
}

@ObjectType({ simpleResolvers: true })
export class SearchResult {
  @Field(() => [Store])
  stores!: Store[];

  @Field(() => [Product])
  products!: Product[];
}
