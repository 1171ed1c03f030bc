/**
 * Store details (spec §4.3, GET /store/stores/{store}) in one statement, composed here above
 * the stores and offers modules (each owns its fragment; neither imports the other): the store with its
 * category, opening hours, active offers and "open now" read beside it (JSON columns), handed
 * to the loaders its fields read (DataLoader `prime`), so answering every field of the details
 * sends nothing more. Each of those was its own round trip, and on this machine a round trip
 * costs the service more CPU than anything else in the request (docs/decisions.md "One statement per
 * screen and per store read"). The fields keep their loaders: a store read anywhere else
 * (lists, an order's store) loads them as before.
 */
import { notFound } from '../../common/errors';
import { fromJson, View, viewColumns, asViews } from '../../common/row-views';
import { EntityManager } from '@mikro-orm/postgresql';
import { Context } from '../../context';
import { executePrepared, textsBuiltOnce } from '../../common/entity-manager';
import { activeOffersJson, activeOffersOfStore } from '../offers/offer.loaders';
import { Offer } from '../offers/offer.entity';
import { OpeningHours } from '../stores/opening-hours.entity';
import { StoreCategory } from '../stores/store-category.entity';
import { Store } from '../stores/store.entity';
import {
  openingHoursJson,
  openingHoursOfStore,
  openNowParams,
  openNowSql,
  primeIsOpen,
  storeCategoryById,
  storeCategoryJson,
} from '../stores/store.loaders';
import { storeKeyCondition } from '../stores/store.service';

interface DetailsRow {
  pre_category: object | null;
  pre_hours: object[] | null;
  pre_offers: object[] | null;
  pre_open: boolean | null;
}

/** The statement's text for a key condition (`s.id = ?` or `s.slug = ?`): code only, built once (textsBuiltOnce). */
const detailsTexts = textsBuiltOnce();

function detailsSql(em: EntityManager, condition: string): string {
  return detailsTexts(
    condition,
    () => `select ${viewColumns(em, Store, 's')},
            ${storeCategoryJson(em, 's')} as pre_category,
            ${openingHoursJson(em, 's')} as pre_hours,
            ${activeOffersJson(em, 's')} as pre_offers,
            ${openNowSql('s')} as pre_open
     from stores s where ${condition} and s.is_active`,
  );
}

/**
 * An active store by id or slug, its details primed; 404 otherwise. The statement is prepared
 * (`executePrepared`: each pooled connection parses and plans it once, the key and the zones'
 * clocks bound): rows as views, nothing loaded or flushed.
 */
export async function getStoreDetails(ctx: Context, idOrSlug: string | number): Promise<View<Store>> {
  const em = ctx.em;
  const { sql, param, key } = storeKeyCondition(idOrSlug, 's');
  const [row] = await executePrepared<DetailsRow>(em, detailsSql(em, sql), [...(await openNowParams(ctx)), param]);
  if (!row) throw notFound('Store', key);
  const { pre_category: category, pre_hours: hours, pre_offers: offers, pre_open: open, ...columns } = row;
  const [store] = asViews(em, Store, [columns]);
  if (category) storeCategoryById(ctx).prime(store.category!.id, fromJson(em, StoreCategory, [category])[0]);
  openingHoursOfStore(ctx).prime(store.id, fromJson(em, OpeningHours, hours));
  activeOffersOfStore(ctx).prime(store.id, fromJson(em, Offer, offers));
  primeIsOpen(ctx, store, open);
  return store;
}
