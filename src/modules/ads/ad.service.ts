import { Context, readerOf } from '../../context';
import { View } from '../../common/row-views';
import { Ad } from './ad.entity';
import { activeAdViews } from './ad-query';

/**
 * Switched-on ads inside their window, in display order (spec §2.3). One statement, no fork of
 * its own: rows as views, nothing loaded or flushed (context.ts `readerOf`; as store-details.ts).
 */
export async function activeAds(ctx: Context): Promise<View<Ad>[]> {
  return activeAdViews(readerOf(ctx));
}
