import { Context } from '../../context';
import { View } from '../../common/row-views';
import { Ad } from './ad.entity';
import { activeAdViews } from './ad-query';

/**
 * Switched-on ads inside their window, in display order (spec §2.3). One statement: rows as
 * views, nothing loaded or flushed.
 */
export async function activeAds(ctx: Context): Promise<View<Ad>[]> {
  return activeAdViews(ctx.em);
}
