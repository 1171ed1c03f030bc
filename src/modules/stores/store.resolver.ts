import { Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { Context } from '../../context';
import { MainCategory } from './main-category.entity';
import { OpeningHours } from './opening-hours.entity';
import { StoreCategory } from './store-category.entity';
import { activeStoreCountByCategory, openingHoursOfStore, storeCategoryById, storeIsOpen, topStoresByCategory } from './store.loaders';
import { listMainCategories, listStoreCategories } from './store.service';
import { Store } from './store.entity';

@Resolver(() => Store)
export class StoreResolver {
  @Query(() => [StoreCategory], { description: 'Kinds of store (Pizza, Groceries...), for filters.' })
  async storeCategories(@Ctx() ctx: Context): Promise<StoreCategory[]> {
    return listStoreCategories(ctx);
  }

  @Query(() => [MainCategory])
  async mainCategories(@Ctx() ctx: Context): Promise<MainCategory[]> {
    return listMainCategories(ctx);
  }

  // The card fields answer synchronously what the list's statement already read (`primed`):
  // no promise per field and per card for graphql-js to wait on (batch-loader.ts PrimedLoader).
  @FieldResolver(() => StoreCategory, { nullable: true })
  category(@Root() store: Store, @Ctx() ctx: Context): StoreCategory | null | Promise<StoreCategory | null> {
    if (!store.category) return null;
    const loader = storeCategoryById(ctx);
    return loader.primed(store.category.id) ?? loader.load(store.category.id);
  }

  @FieldResolver(() => String, { nullable: true, description: "The category's name (spec §2.4 `category`)." })
  categoryName(@Root() store: Store, @Ctx() ctx: Context): string | null | Promise<string | null> {
    const category = this.category(store, ctx);
    return category instanceof Promise ? category.then((c) => c?.name ?? null) : (category?.name ?? null);
  }

  @FieldResolver(() => Boolean, { description: 'Open now, from its opening hours in its time zone.' })
  isOpen(@Root() store: Store, @Ctx() ctx: Context): boolean | Promise<boolean> {
    const loader = storeIsOpen(ctx);
    return loader.primed(store) ?? loader.load(store);
  }

  @FieldResolver(() => [OpeningHours])
  openingHours(@Root() store: Store, @Ctx() ctx: Context): OpeningHours[] | Promise<OpeningHours[]> {
    const loader = openingHoursOfStore(ctx);
    return loader.primed(store.id) ?? loader.load(store.id);
  }
}

@Resolver(() => StoreCategory)
export class StoreCategoryFieldsResolver {
  @FieldResolver(() => [Store], { description: 'Its best rated active stores (at most 10).' })
  async topStores(@Root() category: StoreCategory, @Ctx() ctx: Context): Promise<Store[]> {
    return topStoresByCategory(ctx).load(category.id);
  }

  @FieldResolver(() => Int, { description: 'How many active stores it has.' })
  async storesCount(@Root() category: StoreCategory, @Ctx() ctx: Context): Promise<number> {
    return activeStoreCountByCategory(ctx).load(category.id);
  }
}
