import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { Context } from '../../context';
import { Store } from '../stores/store.entity';
import { storeById } from '../stores/store.loaders';
import { activeProductsOfCategory, categoriesOfMenu, optionGroupsOfProduct, supplementsOfProduct, valuesOfOptionGroup } from './catalog.loaders';
import { catalog, storeProducts } from './catalog.service';
import { Catalog } from './catalog.types';
import { MenuCategory } from './menu-category.entity';
import { Menu } from './menu.entity';
import { ProductOptionGroup, ProductOptionValue, ProductSupplement } from './product-option.entity';
import { Product } from './product.entity';

@Resolver()
export class CatalogResolver {
  @Query(() => Catalog, { description: 'A store with its active menus and offers (spec §2.7).' })
  async catalog(@Arg('storeId', () => Int) storeId: number, @Ctx() ctx: Context): Promise<Catalog> {
    return catalog(ctx, storeId);
  }

  @Query(() => [Product], { description: 'The active products of a store.' })
  async storeProducts(@Arg('storeId', () => Int) storeId: number, @Ctx() ctx: Context): Promise<Product[]> {
    return storeProducts(ctx, storeId);
  }
}

@Resolver(() => Menu)
export class MenuFieldsResolver {
  @FieldResolver(() => [MenuCategory])
  async categories(@Root() menu: Menu, @Ctx() ctx: Context): Promise<MenuCategory[]> {
    return categoriesOfMenu(ctx).load(menu.id);
  }
}

@Resolver(() => MenuCategory)
export class MenuCategoryFieldsResolver {
  @FieldResolver(() => [Product], { description: 'Active products.' })
  async products(@Root() category: MenuCategory, @Ctx() ctx: Context): Promise<Product[]> {
    return activeProductsOfCategory(ctx).load(category.id);
  }
}

@Resolver(() => Product)
export class ProductFieldsResolver {
  @FieldResolver(() => [ProductOptionGroup])
  async optionGroups(@Root() product: Product, @Ctx() ctx: Context): Promise<ProductOptionGroup[]> {
    return optionGroupsOfProduct(ctx).load(product.id);
  }

  @FieldResolver(() => [ProductSupplement])
  async supplements(@Root() product: Product, @Ctx() ctx: Context): Promise<ProductSupplement[]> {
    return supplementsOfProduct(ctx).load(product.id);
  }

  @FieldResolver(() => Store)
  async store(@Root() product: Product, @Ctx() ctx: Context): Promise<Store> {
    return (await storeById(ctx).load(product.store.id))!;
  }
}

@Resolver(() => ProductOptionGroup)
export class OptionGroupFieldsResolver {
  @FieldResolver(() => [ProductOptionValue])
  async values(@Root() group: ProductOptionGroup, @Ctx() ctx: Context): Promise<ProductOptionValue[]> {
    return valuesOfOptionGroup(ctx).load(group.id);
  }
}
