/**
 * GET /api/v1/global/ads and GET /api/v1/store/stores/:store by hand: the one statement each
 * that the service sends, prepared as it sends them (src/modules/ads/ad-query.ts: the live ads,
 * nothing bound; src/modules/discovery/store-details.service.ts: the store with its category, hours, active
 * offers and "open now" as JSON columns; a second statement only the first time a zone is met),
 * from the same SQL builders.
 */
import { Request } from 'express';
import { roundCoordinate } from '../../src/common/coordinate-field';
import { openNowSql } from '../../src/modules/stores/store.loaders';
import { storeKeyCondition } from '../../src/modules/stores/store.service';
import { offer, openNowParams, openOfUnmet, preparedRows, Row, storeCategory, storeSummary, Twin } from './twin';

export interface DetailsTexts {
  /** ad-query.ts activeAdsSql: viewColumns of Ad as `a` and the live ads' rule. */
  adsSql: string;
  /** viewColumns of Store as `s`. */
  storeColumns: string;
  /** store.loaders.ts storeCategoryJson and openingHoursJson, offer.loaders.ts activeOffersJson, of `s`. */
  categoryJson: string;
  hoursJson: string;
  offersJson: string;
}

export async function ads(twin: Twin, texts: DetailsTexts): Promise<Row[]> {
  // Prepared, as the service sends it (ad-query.ts activeAdViews: executePrepared).
  return (await preparedRows(twin, texts.adsSql, [])).map((a) => ({
    id: a.id,
    title: a.title,
    type: a.type,
    image: a.image,
    redirect_type: a.redirectType,
    store_id: a.store ?? null,
    product_id: a.product ?? null,
    sort_order: a.sortOrder,
  }));
}

type DetailsRow = Row & { pre_category: Row | null; pre_hours: Row[] | null; pre_offers: Row[] | null; pre_open: boolean | null };

/** RestStoreDetail, or null for no active store of that id or slug. */
export async function storeDetails(twin: Twin, texts: DetailsTexts, req: Request): Promise<Row | null> {
  const { sql, param } = storeKeyCondition(String(req.params.store), 's');
  const now = new Date();
  // Prepared, as the service sends it (store-details.service.ts: executePrepared).
  const [s] = await preparedRows<DetailsRow>(
    twin,
    `select ${texts.storeColumns},
            ${texts.categoryJson} as pre_category,
            ${texts.hoursJson} as pre_hours,
            ${texts.offersJson} as pre_offers,
            ${openNowSql('s')} as pre_open
     from stores s where ${sql} and s.is_active`,
    [...openNowParams(twin, now), param],
  );
  if (!s) return null;
  const open =
    s.pre_open ?? (await openOfUnmet(twin, [s as unknown as { id: number; timezone: string }], now)).get(s.id as number) ?? false;
  const category = s.pre_category;
  return {
    ...storeSummary(s, (category?.name as string | undefined) ?? null, null, open),
    description: s.description,
    latitude: roundCoordinate(s.latitude as number),
    longitude: roundCoordinate(s.longitude as number),
    timezone: s.timezone,
    delivery_radius_km: s.deliveryRadiusKm,
    category_detail: category && storeCategory(category),
    opening_hours: (s.pre_hours ?? []).map((h) => ({ day_of_week: h.dayOfWeek, opens_at: h.opensAt, closes_at: h.closesAt })),
    offers: (s.pre_offers ?? []).map(offer),
  };
}
