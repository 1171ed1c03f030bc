/** Batch loaders over offer rows: customers see a store's offers inside their active window. */
import { activeWindowSql } from '../../common/active-window';
import { batchLoader, groupBy } from '../../common/batch-loader';
import { EntityManager } from '@mikro-orm/postgresql';
import { readViews, View, viewObject } from '../../common/row-views';
import { Offer } from './offer.entity';

/** Read-only views (src/common/row-views.ts): they feed answers, never writes. */
export const activeOffersOfStore = batchLoader<number, View<Offer>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, Offer, 'o', `from offers o where o.store_id in (?) and ${activeWindowSql('o')} order by o.id asc`, [[...keys]]),
    (o) => o.store!.id,
  ),
);

/** activeOffersOfStore's rows of the store aliased `store`, in its order, as a JSON array (null: none). */
export const activeOffersJson = (em: EntityManager, store: string) =>
  `(select json_agg(${viewObject(em, Offer, 'o')} order by o.id asc) from offers o where o.store_id = ${store}.id and ${activeWindowSql('o')})`;
