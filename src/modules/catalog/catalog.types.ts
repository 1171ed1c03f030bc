import { Field, ObjectType } from 'type-graphql';
import { PageMeta } from '../../common/pagination';
import { Offer } from '../offers/offer.entity';
import { Store } from '../stores/store.entity';
import type { StoreCatalog } from './catalog.service';
import { Menu } from './menu.entity';
import { MenuCategory } from './menu-category.entity';

@ObjectType({ simpleResolvers: true })
export class Catalog implements StoreCatalog {
  @Field(() => Store)
  store!: Store;

  @Field(() => [Menu])
  menus!: Menu[];

  @Field(() => [Offer], { description: "The store's active offers and the global ones." })
  offers!: Offer[];
}

@ObjectType({ simpleResolvers: true })
export class MenuPage {
  @Field(() => [Menu])
  menus!: Menu[];

  @Field(() => PageMeta)
  meta!: PageMeta;
}

@ObjectType({ simpleResolvers: true })
export class MenuCategoryPage {
  @Field(() => [MenuCategory])
  menuCategories!: MenuCategory[];

  @Field(() => PageMeta)
  meta!: PageMeta;
}
