/**
 * The reach index (reach-index.ts, kept in step by reach-loader.ts) as the store lists use it:
 * its callers ask for a page or a listing and never see its version or a stale answer. Every
 * answer is checked against the database's reach version in the statement that reads it, and
 * an answer from a copy gone stale is thrown away here; null means "answer with SQL" (the
 * index turned off, rebuilding, or a store at its boundary). docs/decisions.md "Nearby: the
 * in-process reach index".
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../../../common/entity-manager';
import { View } from '../../../common/row-views';
import { localTimesOf } from '../local-time';
import { Store } from '../store.entity';
import {
  FoundStores,
  GeoPoint,
  nearestFirst,
  ORDER_BY,
  Page,
  pageColumns,
  PageRow,
  pageViews,
  StoreCard,
  storeConditions,
  StoreFilter,
  StoreSort,
} from '../store-query';
import { filtersStores, ReachAnswers, ReachQuery, REACH_SORTS, ReachSort, weekSeconds } from './reach-index';
import { lastReachIndex, noteReachSnapshot, REACH_SNAPSHOT_SQL, REACH_VERSION_SQL, reachIndex, turnReachIndexOff } from './reach-loader';

export { turnReachIndexOff };

/** Builds the copy now, whatever the city's size (before the first request; tests). Null when turned off. */
export const warmReachIndex = (em: EntityManager): Promise<unknown> => reachIndex(em, { wait: true });

/** The answer of a statement that returned another reach version than the copy's: thrown away. */
const STALE = Symbol('stale');

/** The version and snapshot a page's rows were read at (pageColumns' `stamp`), one text. */
const STAMP_SQL = `${REACH_VERSION_SQL} || ' ' || ${REACH_SNAPSHOT_SQL}`;

/**
 * Nearby's page from the reach index, or null when SQL must answer (findStoresBySql): no point,
 * a sort the index does not rank, the index off or rebuilding, a store at its boundary.
 * One statement when nothing was written since the copy in hand was built: the copy answers
 * and its version is checked by the page's own statement (the snapshot the page is read
 * at). Another version there, and the answer is thrown away: reachIndex checks the version
 * (and catches up or starts the rebuild), then the current copy answers, or SQL.
 * `cardsAt`: the request's instant, to read each store's card (category, open then) in the same statement.
 */
export async function reachStoresPage(
  em: EntityManager,
  filter: StoreFilter,
  sort: StoreSort,
  page: Page,
  cardsAt: Date | undefined,
): Promise<FoundStores | null> {
  if (!filter.point || !(REACH_SORTS as readonly string[]).includes(sort)) return null;
  const inHand = lastReachIndex(em);
  let found = inHand && (await fromReachIndex(em, inHand, filter, sort as ReachSort, page, cardsAt));
  if (!inHand || found === STALE) {
    const current = await reachIndex(em);
    found = current && (await fromReachIndex(em, current, filter, sort as ReachSort, page, cardsAt));
  }
  return found && found !== STALE ? found : null;
}

/** Where few stores deliver, the index's list of them: its ids, the index's size, and the `stamp` LISTING_CURRENT_SQL checks. */
export interface ReachListing {
  ids: number[];
  size: number;
  stamp: string;
}

/**
 * The stores delivering to `point` as the copy in hand names them, when at most
 * `atMost(its size)` do (null otherwise, or where the copy cannot decide). Bind the `stamp` to
 * LISTING_CURRENT_SQL in the statement that uses the list: it holds only while the database is
 * still at the copy's version. No statement here: a stale copy costs time, not answers.
 */
export function reachListing(em: EntityManager, point: GeoPoint, atMost: (size: number) => number): ReachListing | null {
  const index = lastReachIndex(em);
  return index && listingOf(index, point, atMost);
}

/** reachListing from a given copy (the bench's twins hold their own). */
export function listingOf(index: ReachAnswers, point: GeoPoint, atMost: (size: number) => number): ReachListing | null {
  const ids = index.matchingIds({ lat: point.lat, lng: point.lng }, atMost(index.size));
  return ids && { ids, size: index.size, stamp: index.version };
}

/** True when the database's reach data is still what a listing's `stamp` (its one parameter; null: false) was read from. */
export const LISTING_CURRENT_SQL = `coalesce(?::text = ${REACH_VERSION_SQL}, false)`;

/**
 * The page and exact total from a copy of the reach index (reach-index.ts): the copy counts
 * the matching stores and names the few that can be on the page; PostgreSQL sorts those by
 * the sort's exact order (its own distances), checks them against the filter once more and
 * returns their rows, their categories with `cardsAt`, and the reach version, in one
 * statement. STALE when that version is not the copy's; null when the copy cannot answer (a
 * store at its boundary): SQL answers then.
 */
async function fromReachIndex(
  em: EntityManager,
  index: ReachAnswers,
  filter: StoreFilter,
  sort: ReachSort,
  page: Page,
  cardsAt: Date | undefined,
): Promise<FoundStores | typeof STALE | null> {
  const openAt = filter.openAt && zoneClocks(index, filter.openAt);
  const cardClock = cardsAt && zoneClocks(index, cardsAt);
  if (openAt === null || cardClock === null) return null;
  const { point, radiusKm, minRating, freeDelivery, categoryId, hasOffer } = filter;
  const query: ReachQuery = { lat: point!.lat, lng: point!.lng, radiusKm, minRating, freeDelivery, categoryId, openAt: openAt?.weeks };
  // Offers are live by the database's now() in SQL and by this clock here: the same instant but for the gap between two statements.
  if (hasOffer) query.offerAt = Date.now();
  const cards = cardClock !== undefined;
  let total: number | null;
  let rows: PageRow[];
  if (sort === 'distance' && !filtersStores(query) && (total = index.count(query)) !== null && total >= page.offset + page.limit) {
    // Nearest first with no filter but the radius: the KNN walk of the position index meets a match at every step.
    rows = await nearestFirst(em, filter, openAt?.json, page, cards, STAMP_SQL);
  } else {
    const found = index.page(query, sort, page.offset, page.limit);
    if (!found) return null;
    total = found.total;
    if (found.candidates.length === 0) {
      const [{ version, snapshot }] = await executePrepared<{ version: string; snapshot: string }>(
        em,
        `select ${REACH_VERSION_SQL} as version, ${REACH_SNAPSHOT_SQL} as snapshot`,
        [],
      );
      if (version !== index.version) return STALE;
      noteReachSnapshot(em, index, snapshot);
      return { stores: [], total, cards: cards ? new Map() : undefined };
    }
    const { where, params, distance, distanceParams } = storeConditions(filter, { box: false, localTimes: openAt?.json });
    // On the read pool, unnamed (the text varies with the filter); the candidates as one array value.
    rows = await executePrepared<PageRow>(
      em,
      `select ${pageColumns(em, distance, cards, STAMP_SQL)} from stores s where s.id = any(?::int[]) and ${where}
       order by ${ORDER_BY[sort]}, distance_m asc, s.id asc limit ? offset ?`,
      [...distanceParams, `{${found.candidates.join(',')}}`, ...params, page.limit, found.skip],
      { named: false },
    );
  }
  // No row, no version: a write may have taken every candidate away; the current copy or SQL decides.
  if (rows.length === 0) return STALE;
  const [version, snapshot] = rows[0].stamp!.split(' ');
  if (version !== index.version) return STALE;
  noteReachSnapshot(em, index, snapshot);
  const { stores, categories } = pageViews(em, rows);
  if (!cardClock) return { stores, total };
  const open = index.openNow(
    stores.map((s) => s.id),
    cardClock.weeks,
  );
  const cardOf = new Map<View<Store>, StoreCard>();
  stores.forEach((store, k) => {
    const isOpen = open[k];
    if (isOpen !== null) cardOf.set(store, { category: categories[k], open: isOpen });
  });
  return { stores, total, cards: cardOf };
}

/**
 * Each zone of the copy's stores at `at`: the clock map store_is_open takes (JSON) and the
 * index's (seconds from Sunday), the same instant; null if a wall clock is not in
 * storeLocalTimes' format. A copy's map covers every store it holds, and its pages only
 * hold those (the version check makes sure), so no walk of the zones in use is needed.
 */
function zoneClocks(index: ReachAnswers, at: Date): { json: string; weeks: Map<string, number> } | null {
  const second = Math.floor(at.getTime() / 1000);
  const last = lastClocks.get(index);
  if (last?.second === second) return last.clocks;
  const json = localTimesOf(index.zones, at);
  const weeks = new Map<string, number>();
  let clocks: { json: string; weeks: Map<string, number> } | null = { json, weeks };
  for (const [zone, local] of Object.entries(JSON.parse(json) as Record<string, string>)) {
    const t = weekSeconds(local);
    if (t === null) clocks = null;
    else weeks.set(zone, t);
  }
  lastClocks.set(index, { second, clocks });
  return clocks;
}

/** zoneClocks' last answer per copy (every request of a second asks for the same). */
const lastClocks = new WeakMap<ReachAnswers, { second: number; clocks: { json: string; weeks: Map<string, number> } | null }>();
