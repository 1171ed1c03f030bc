/** The ads as the API answers them, read as views (no hydration): the home screen asks on every open. */
import { EntityManager } from '@mikro-orm/postgresql';
import { activeWindowSql } from '../../common/active-window';
import { readViews, View } from '../../common/row-views';
import { Ad } from './ad.entity';

/** Switched-on ads inside their window, in display order (spec §2.3). */
export async function activeAdViews(em: EntityManager): Promise<View<Ad>[]> {
  return readViews(em, Ad, 'a', `from ads a where a.is_active and ${activeWindowSql('a')} order by a.sort_order asc, a.id asc`);
}
