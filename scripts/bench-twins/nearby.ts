/**
 * GET /api/v1/stores/nearby by hand: the service's reach index path (src/modules/stores/
 * store-query.ts `fromReachIndex`) with the same ReachAnswers for the total and the page's
 * candidates, the same statement for the page's rows, and the same index for "open now".
 * Only what the bench asks for: a point and a sort of the index (every nearby URL it sends).
 * The index is built once at start-up and taken as current (the bench writes nothing), but
 * each page's statement still reads the reach version, as the service's does, and a twin
 * that finds another one fails rather than answer.
 */
import { Request } from 'express';
import { localTimesOf } from '../../src/modules/stores/local-time';
import { filtersStores, ReachAnswers, ReachQuery, ReachSort, weekSeconds } from '../../src/modules/stores/reach/reach-index';
import { ORDER_BY, StoreFilter, storeConditions } from '../../src/modules/stores/store-query';
import { kmOf, openOfUnmet, Row, rows, storeSummary, Twin } from './twin';

export interface NearbyTexts {
  /** The store's view columns (row-views.ts viewColumns of Store as `s`). */
  storeColumns: string;
  /** Its category's view as JSON (store.loaders.ts storeCategoryJson of `s`). */
  categoryJson: string;
  /** reach-index.loader.ts REACH_VERSION_SQL. */
  versionSql: string;
  /** reach-index.loader.ts REACH_SNAPSHOT_SQL (the service reads it beside the version; the twin only sends it). */
  snapshotSql: string;
}

type PageRow = Row & { distance_m: number | null; reachVersion: string; cardCategory: { name: string } | null };

const int = (text: unknown) => (text === undefined ? undefined : Number(text));
const flag = (text: unknown) => (text === undefined ? undefined : text === '1' || text === 'true');

/** A nearby request as the service reads it: its filter, sort and page, and the reach index's query (shared with nearby-memory.ts). */
export interface NearbyRequest {
  sort: ReachSort;
  page: number;
  perPage: number;
  limit: number;
  offset: number;
  now: Date;
  filter: StoreFilter;
  query: ReachQuery;
  clocks: { json: string; weeks: Map<string, number> };
}

export function nearbyRequest(index: ReachAnswers, req: Request): NearbyRequest {
  const q = req.query as Record<string, string | undefined>;
  const sort = (q.sort ?? 'distance') as ReachSort;
  const page = int(q.page) ?? 1;
  const perPage = int(q.per_page) ?? 15;
  const now = new Date();
  const filter: StoreFilter = {
    point: { lat: Number(q.lat), lng: Number(q.lng) },
    radiusKm: int(q.radius),
    minRating: q.min_rating === undefined ? undefined : Number(q.min_rating),
    freeDelivery: flag(q.free_delivery),
    openAt: flag(q.is_open) ? now : undefined,
    hasOffer: flag(q.has_offer),
    categoryId: int(q.category_id),
  };
  const clocks = zoneClocks(index, now);
  const { point, radiusKm, minRating, freeDelivery, categoryId } = filter;
  const query: ReachQuery = {
    lat: point!.lat,
    lng: point!.lng,
    radiusKm,
    minRating,
    freeDelivery,
    categoryId,
    openAt: filter.openAt && clocks.weeks,
  };
  if (filter.hasOffer) query.offerAt = Date.now();
  return { sort, page, perPage, limit: perPage, offset: (page - 1) * perPage, now, filter, query, clocks };
}

export async function nearby(twin: Twin, index: ReachAnswers, texts: NearbyTexts, req: Request): Promise<Row> {
  const { sort, page, perPage, limit, offset, now, filter, query, clocks } = nearbyRequest(index, req);
  const { point } = filter;
  const localTimes = filter.openAt && clocks.json;
  const columns = (distance: string) =>
    `${texts.storeColumns}, ${distance} as distance_m, ${texts.versionSql} as "reachVersion", ${texts.snapshotSql} as "reachSnapshot", ${texts.categoryJson} as "cardCategory"`;

  let total: number | null;
  let found: PageRow[];
  if (sort === 'distance' && !filtersStores(query) && (total = index.count(query)) !== null && total >= offset + limit) {
    // Nearest first (store-query.ts nearestFirst): the KNN walk meets a match at every step.
    const { where, params, distance, distanceParams } = storeConditions(filter, { box: false, localTimes });
    found = await rows<PageRow>(
      twin,
      `select ${columns('k.distance_m')} from (
       select id, distance_m from (
         select s.id, ${distance} as distance_m from stores s where ${where}
         order by s.earth <-> ll_to_earth(?, ?) fetch first ? rows with ties) k
       order by distance_m, id limit ? offset ?) k
     join stores s on s.id = k.id
     order by k.distance_m, k.id`,
      [...distanceParams, ...params, point!.lat, point!.lng, offset + limit, limit, offset],
    );
  } else {
    const picked = index.page(query, sort, offset, limit);
    // The service answers these from SQL alone (a store at the index's boundary): not twinned.
    if (!picked) throw new Error('nearby twin: the reach index cannot decide this page');
    total = picked.total;
    if (picked.candidates.length === 0) {
      const [{ version }] = await rows<{ version: string }>(
        twin,
        `select ${texts.versionSql} as version, ${texts.snapshotSql} as snapshot`,
      );
      if (version !== index.version) throw new Error('nearby twin: the reach data changed');
      return answer(twin, [], [], total, page, perPage);
    }
    const { where, params, distance, distanceParams } = storeConditions(filter, { box: false, localTimes });
    found = await rows<PageRow>(
      twin,
      `select ${columns(distance)} from stores s where s.id in (?) and ${where}
       order by ${ORDER_BY[sort]}, distance_m asc, s.id asc limit ? offset ?`,
      [...distanceParams, picked.candidates, ...params, limit, picked.skip],
    );
  }
  if (found.length === 0 || found[0].reachVersion !== index.version) throw new Error('nearby twin: the reach data changed');
  const open = index.openNow(
    found.map((s) => s.id as number),
    clocks.weeks,
  );
  return answer(twin, found, open, total, page, perPage, now);
}

/** `{ stores, meta }`: the cards, "open now" from the index (a store it does not hold: storeIsOpen's statement). */
async function answer(
  twin: Twin,
  found: PageRow[],
  open: (boolean | null)[],
  total: number,
  page: number,
  perPage: number,
  now = new Date(),
): Promise<Row> {
  const undecided = await openOfUnmet(twin, found.filter((_, k) => open[k] === null) as unknown as { id: number; timezone: string }[], now);
  return {
    stores: found.map((s, k) =>
      storeSummary(s, s.cardCategory?.name ?? null, kmOf(s.distance_m), open[k] ?? undecided.get(s.id as number) ?? false),
    ),
    meta: { total, per_page: perPage, current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}

/** store-query.ts zoneClocks: each zone of the index's stores at `at`, as store_is_open's JSON map and as the index's seconds from Sunday. */
function zoneClocks(index: ReachAnswers, at: Date): { json: string; weeks: Map<string, number> } {
  // Kept for the rest of its second, as the service keeps it.
  const second = Math.floor(at.getTime() / 1000);
  if (lastClocks?.index === index && lastClocks.second === second) return lastClocks.clocks;
  const json = localTimesOf(index.zones, at);
  const weeks = new Map<string, number>();
  for (const [zone, local] of Object.entries(JSON.parse(json) as Record<string, string>)) {
    const t = weekSeconds(local);
    if (t === null) throw new Error(`nearby twin: ${zone}'s wall clock ${local} is not one the index reads`);
    weeks.set(zone, t);
  }
  lastClocks = { index, second, clocks: { json, weeks } };
  return lastClocks.clocks;
}

let lastClocks: { index: ReachAnswers; second: number; clocks: { json: string; weeks: Map<string, number> } } | undefined;
