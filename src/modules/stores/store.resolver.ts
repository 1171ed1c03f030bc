import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { Context } from '../../context';
import { MainCategory } from './main-category.entity';
import { OpeningHours } from './opening-hours.entity';
import { StoreCategory } from './store-category.entity';
import { activeStoreCountByCategory, openingHoursOfStore, storeCategoryById, storeIsOpen, topStoresByCategory } from './store.loaders';
import { listMainCategories, listStoreCategories } from './store.service';
import { getStoreDetails } from './store-details';
import { Store } from './store.entity';

@Resolver(() => Store)
export class StoreResolver {
  /** Reads its category, hours, offers and "open now" in the same statement (store-details.ts). */
  @Query(() => Store, { description: 'An active store by id or slug.' })
  async store(@Arg('idOrSlug', () => String) idOrSlug: string, @Ctx() ctx: Context): Promise<Store> {
    return getStoreDetails(ctx, idOrSlug);
  }

  @Query(() => [StoreCategory], { description: 'Kinds of store (Pizza, Groceries...), for filters.' })
  async storeCategories(@Ctx() ctx: Context): Promise<StoreCategory[]> {
    return listStoreCategories(ctx);
  }

  @Query(() => [MainCategory])
  async mainCategories(@Ctx() ctx: Context): Promise<MainCategory[]> {
    return listMainCategories(ctx);
  }

  @FieldResolver(() => StoreCategory, { nullable: true })
  async category(@Root() store: Store, @Ctx() ctx: Context): Promise<StoreCategory | null> {
    return store.category ? storeCategoryById(ctx).load(store.category.id) : null;
  }

  @FieldResolver(() => String, { nullable: true, description: "The category's name (spec §2.4 `category`)." })
  async categoryName(@Root() store: Store, @Ctx() ctx: Context): Promise<string | null> {
    return (await this.category(store, ctx))?.name ?? null;
  }

  @FieldResolver(() => Boolean, { description: 'Open now, from its opening hours in its time zone.' })
  async isOpen(@Root() store: Store, @Ctx() ctx: Context): Promise<boolean> {
    return storeIsOpen(ctx).load(store);
  }

  @FieldResolver(() => [OpeningHours])
  async openingHours(@Root() store: Store, @Ctx() ctx: Context): Promise<OpeningHours[]> {
    return openingHoursOfStore(ctx).load(store.id);
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
