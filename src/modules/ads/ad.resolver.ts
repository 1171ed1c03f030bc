import { Ctx, Query, Resolver } from 'type-graphql';
import { Context } from '../../context';
import { Ad } from './ad.entity';
import { activeAds } from './ad.service';

@Resolver()
export class AdResolver {
  @Query(() => [Ad], { description: 'Active banners in display order (spec §2.3).' })
  async ads(@Ctx() ctx: Context): Promise<Ad[]> {
    return activeAds(ctx);
  }
}
