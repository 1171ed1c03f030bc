import { Context } from '../../context';
import { activeWindowWhere } from '../../common/active-window';
import { Ad } from './ad.entity';

/** Switched-on ads inside their window, in display order (spec §2.3). */
export async function activeAds(ctx: Context): Promise<Ad[]> {
  return ctx.em.find(Ad, { isActive: true, ...activeWindowWhere() }, { orderBy: { sortOrder: 'asc', id: 'asc' } });
}
