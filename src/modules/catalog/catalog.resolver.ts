import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { Context } from '../../context';
import { Store } from '../stores/store.entity';
import { storeById } from '../stores/store.loaders';
import {
  activeProductsOfCategory,
  categoriesOfMenu,
  optionGroupsOfProduct,
  supplementsOfProduct,
  valuesOfOptionGroup,
} from './catalog.loaders';
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

// The catalog's nested lists answer synchronously what its one statement primed (batch-loader.ts
// PrimedLoader): no promise per menu, category, product and option group for the executor to
// wait on (docs/decisions.md "Executing REST rows").
@Resolver(() => Menu)
export class MenuFieldsResolver {
  @FieldResolver(() => [MenuCategory])
  categories(@Root() menu: Menu, @Ctx() ctx: Context): MenuCategory[] | Promise<MenuCategory[]> {
    const loader = categoriesOfMenu(ctx);
    return loader.primed(menu.id) ?? loader.load(menu.id);
  }
}

@Resolver(() => MenuCategory)
export class MenuCategoryFieldsResolver {
  @FieldResolver(() => [Product], { description: 'Active products.' })
  products(@Root() category: MenuCategory, @Ctx() ctx: Context): Product[] | Promise<Product[]> {
    const loader = activeProductsOfCategory(ctx);
    return loader.primed(category.id) ?? loader.load(category.id);
  }
}

@Resolver(() => Product)
export class ProductFieldsResolver {
  @FieldResolver(() => [ProductOptionGroup])
  optionGroups(@Root() product: Product, @Ctx() ctx: Context): ProductOptionGroup[] | Promise<ProductOptionGroup[]> {
    const loader = optionGroupsOfProduct(ctx);
    return loader.primed(product.id) ?? loader.load(product.id);
  }

  @FieldResolver(() => [ProductSupplement])
  supplements(@Root() product: Product, @Ctx() ctx: Context): ProductSupplement[] | Promise<ProductSupplement[]> {
    const loader = supplementsOfProduct(ctx);
    return loader.primed(product.id) ?? loader.load(product.id);
  }

  @FieldResolver(() => Store)
  async store(@Root() product: Product, @Ctx() ctx: Context): Promise<Store> {
    return (await storeById(ctx).load(product.store.id))!;
  }
}

@Resolver(() => ProductOptionGroup)
export class OptionGroupFieldsResolver {
  @FieldResolver(() => [ProductOptionValue])
  values(@Root() group: ProductOptionGroup, @Ctx() ctx: Context): ProductOptionValue[] | Promise<ProductOptionValue[]> {
    const loader = valuesOfOptionGroup(ctx);
    return loader.primed(group.id) ?? loader.load(group.id);
  }
}
