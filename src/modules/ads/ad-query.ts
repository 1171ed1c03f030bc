/**
 * The ads as the API answers them, read as rows (no entity hydration): the home screen asks
 * for them on every open.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { activeWindowSql } from '../../common/active-window';
import { asViews, View } from '../../common/row-views';
import { Ad } from './ad.entity';

/** Switched-on ads inside their window, in display order (spec §2.3). */
export async function activeAdViews(em: EntityManager): Promise<View<Ad>[]> {
  const rows = await em.execute(
    `select id, title, type, image, redirect_type as "redirectType", sort_order as "sortOrder", is_active as "isActive",
       starts_at as "startsAt", ends_at as "endsAt", store_id as "storeId", product_id as "productId"
     from ads a where a.is_active and ${activeWindowSql('a')}
     order by a.sort_order asc, a.id asc`,
  );
  return asViews(Ad, rows);
}
