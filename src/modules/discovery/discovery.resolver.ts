import { Arg, Args, Ctx, Query, Resolver } from 'type-graphql';
import { Context } from '../../context';
import { NearbyStoresArgs, OptionalPointArgs, SearchArgs } from './discovery.inputs';
import { homepage, nearbyStores, search } from './discovery.service';
import { Homepage, SearchResult, StorePage } from './discovery.types';
import { Store } from '../stores/store.entity';
import { getStoreDetails } from './store-details.service';

@Resolver()
export class DiscoveryResolver {
  /** Reads its category, hours, offers and "open now" in the same statement (store-details.service.ts). */
  @Query(() => Store, { description: 'An active store by id or slug.' })
  async store(@Arg('idOrSlug', () => String) idOrSlug: string, @Ctx() ctx: Context): Promise<Store> {
    return getStoreDetails(ctx, idOrSlug);
  }

  @Query(() => Homepage, { description: 'Home screen blocks; with a point, only stores that deliver there.' })
  async homepage(@Args() { lat, lng }: OptionalPointArgs, @Ctx() ctx: Context): Promise<Homepage> {
    return homepage(ctx, lat !== undefined && lng !== undefined ? { lat, lng } : undefined);
  }

  @Query(() => StorePage, { description: 'Stores that deliver to the point (spec §4.3).' })
  async nearbyStores(@Args() args: NearbyStoresArgs, @Ctx() ctx: Context): Promise<StorePage> {
    return nearbyStores(ctx, args);
  }

  @Query(() => SearchResult, { description: 'Stores and products by name, accent- and typo-tolerant.' })
  async search(@Args() { q }: SearchArgs, @Ctx() ctx: Context): Promise<SearchResult> {
    return search(ctx, q);
  }
}
