import { Ctx, Query, Resolver } from 'type-graphql';
import { Context } from '../../graphql/context';
import { Ad } from './ad.entity';

@Resolver()
export class AdResolver {
  @Query(() => [Ad], { description: 'Active banners in display order (spec §2.3).' })
  async ads(@Ctx() ctx: Context): Promise<Ad[]> {
    const now = new Date();
    return ctx.em.find(
      Ad,
      {
        isActive: true,
        $and: [{ $or: [{ startsAt: null }, { startsAt: { $lte: now } }] }, { $or: [{ endsAt: null }, { endsAt: { $gt: now } }] }],
      },
      { orderBy: { sortOrder: 'asc', id: 'asc' } },
    );
  }
}
