/** Batch loaders over offer rows: customers see a store's offers inside their active window. */
import { activeWindowWhere } from '../../common/active-window';
import { batchLoader, groupBy, inKeys } from '../../common/batch-loader';
import { Offer } from './offer.entity';

export const activeOffersOfStore = batchLoader<number, Offer[]>(async (em, keys) =>
  groupBy(keys, await em.find(Offer, { store: inKeys(keys), ...activeWindowWhere() }, { orderBy: { id: 'asc' } }), (o) => o.store!.id),
);
