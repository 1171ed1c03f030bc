/**
 * Who delivers to a point, in process memory: a compact typed-array copy of every active
 * store's position, delivery reach and the columns nearby filters and sorts on, bucketed into
 * cells of nearby stores (kdCells); in each cell the stores are sorted by reach. For a point, a cell whose
 * farthest corner is within a store's reach holds that store for certain, a cell nearer than
 * nothing none, and only the stores whose reach falls between the cell's nearest and farthest
 * distance are measured one by one. The test is PostgreSQL's (storeConditions): the chord to
 * the point against the chord of the radius. Positions and reaches are PostgreSQL's own
 * values; only the point is computed here, so a store within a micrometre of its boundary is
 * "too close to call" and the caller asks PostgreSQL instead. docs/decisions.md "Nearby: the in-process
 * reach index".
 * No database access here: reach-loader.ts builds and refreshes it.
 */

import { countAtMost, countBetween, distinctSorted, lowerBoundInt, positionsByValue, prefixCounts, WaveletMatrix } from './reach-counts';

/** earthdistance's earth(): the radius in metres its cubes are built on. */
export const EARTH_M = 6378168;
/** PostgreSQL's RADIANS_PER_DEGREE (radians(); the same double), so the point is computed like ll_to_earth. */
const RADIANS_PER_DEGREE = Math.PI / 180;
/** Chords nearer than this (metres) to a boundary are decided by PostgreSQL, not here. */
const UNSURE_M = 1e-6;
/** Ties within this (metres) are left for PostgreSQL's exact sort of the page's candidates. */
const TIE_M = 1e-3;
/** Pages ending past this many stores are ranked by sorting every match. */
const TOP_MAX = 256;
/** Cells per block (match passes over a block out of reach at once). */
const BLOCK = 16;
/** The first ring of cells listBest lists (chord, metres); rings double from there. */
const FIRST_RING_M = 100;
/** Stores per cell the cells aim at, at least. */
const CELL_TARGET = 32;

/**
 * How a query's stores in reach for certain are counted (scan without `collect`): all of them
 * (no filter), by one filter's counting structure (reach-counts.ts), or each tested (several
 * filters at once, or a value no structure answers).
 */
const COUNT_ALL = 0;
const COUNT_FREE = 1;
const COUNT_CATEGORY = 2;
const COUNT_RATING = 3;
const COUNT_OPEN = 4;
const COUNT_OFFER = 5;
const COUNT_EACH = 6;

export const REACH_SORTS = ['distance', 'rating', 'delivery_fee', 'delivery_time'] as const;
export type ReachSort = (typeof REACH_SORTS)[number];

/** One active store as the loader reads it. */
export interface ReachStore {
  id: number;
  /** The stored `earth` cube's coordinates (metres). */
  x: number;
  y: number;
  z: number;
  /** 2·R·sin(radius/2R) as PostgreSQL computes it: the longest chord the store delivers to. */
  reach: number;
  lat: number;
  lng: number;
  rating: number;
  ratingCount: number;
  freeDelivery: boolean;
  /** The delivery_fee sort's key: 0 when free, else the price in cents. */
  fee: number;
  deliveryTime: number;
  categoryId: number | null;
  timezone: string;
  /** Open periods as [start, end) pairs of seconds from Sunday 00:00 (openPeriods). */
  open: number[];
  /** Offer windows as [start, end) pairs of epoch milliseconds (open ends infinite). */
  offers: number[];
}

/**
 * Stores as columns (the loader reads these, without an object per store): the ReachStore
 * fields by input index, `category` -1 for none, `free` 0/1, `zone` an index into `zones`,
 * and the lists flattened: store i's open periods are open[openAt[i] .. openAt[i+1]-1].
 */
export interface ReachColumns {
  id: Int32Array;
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  reach: Float64Array;
  lat: Float64Array;
  lng: Float64Array;
  rating: Float64Array;
  ratingCount: Int32Array;
  fee: Int32Array;
  time: Int32Array;
  category: Int32Array;
  free: Uint8Array;
  zone: Uint16Array;
  zones: string[];
  openAt: Int32Array;
  open: Int32Array;
  offerAt: Int32Array;
  offers: Float64Array;
}

/** A point and every nearby filter, in the index's terms. */
export interface ReachQuery {
  lat: number;
  lng: number;
  radiusKm?: number;
  minRating?: number;
  freeDelivery?: boolean;
  categoryId?: number;
  /** zone -> seconds from Sunday 00:00 of its wall clock now (localWeekSeconds): only open stores. */
  openAt?: Map<string, number>;
  /** Epoch milliseconds: only stores with an offer live then. */
  offerAt?: number;
}

/** A page as the index sees it; PostgreSQL sorts `candidates` exactly and skips `skip`. */
export interface ReachPage {
  total: number;
  candidates: number[];
  skip: number;
}

export interface HoursRow {
  day: number;
  /** Whole seconds from midnight, rounded up (the wall clock compared with them has whole seconds). */
  opens: number;
  closes: number;
  /** closes_at <= opens_at, decided on the exact values: the period runs past midnight. */
  pastMidnight: boolean;
}

const DAY = 86400;

/**
 * store_is_open's rule as week intervals: a period opens on its day at `opens` and closes at
 * `closes` the same day, or, past midnight, at `closes` the next day (Saturday into Sunday).
 */
export function openPeriods(rows: HoursRow[]): number[] {
  const out: number[] = [];
  for (const h of rows) {
    if (!h.pastMidnight) {
      out.push(h.day * DAY + h.opens, h.day * DAY + h.closes);
    } else {
      out.push(h.day * DAY + h.opens, (h.day + 1) * DAY);
      const next = ((h.day + 1) % 7) * DAY;
      out.push(next, next + h.closes);
    }
  }
  return out;
}

/** `YYYY-MM-DDTHH:MM:SS` (storeLocalTimes' format) as seconds from Sunday 00:00; null otherwise. */
export function weekSeconds(local: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const day = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).getUTCDay();
  return day * DAY + Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]);
}

/** ll_to_earth in Node: the cube of a point, operation for operation. */
export function earthPoint(lat: number, lng: number): [number, number, number] {
  const a = lat * RADIANS_PER_DEGREE;
  const b = lng * RADIANS_PER_DEGREE;
  return [EARTH_M * Math.cos(a) * Math.cos(b), EARTH_M * Math.cos(a) * Math.sin(b), EARTH_M * Math.sin(a)];
}

/** Whether the query has a filter other than distance (each store is then tested on its own). */
export const filtersStores = (q: ReachQuery): boolean =>
  q.minRating !== undefined || q.categoryId !== undefined || Boolean(q.freeDelivery) || q.openAt !== undefined || q.offerAt !== undefined;

/** The chord of `metres` along the surface, as storeConditions' radius filter computes it. */
export const chordOf = (metres: number) => 2 * EARTH_M * Math.sin(metres / (2 * EARTH_M));

/** What nearby asks of a copy of the reach index: a whole one (ReachIndex) or one patched since (reach-patch.ts). */
export interface ReachAnswers {
  /** The store_reach_version the copy holds. */
  readonly version: string;
  readonly size: number;
  readonly zones: readonly string[];
  count(q: ReachQuery): number | null;
  matchingIds(q: ReachQuery, atMost: number): number[] | null;
  page(q: ReachQuery, sort: ReachSort, offset: number, limit: number): ReachPage | null;
  openNow(ids: readonly number[], openAt: Map<string, number>): (boolean | null)[];
}

export class ReachIndex implements ReachAnswers {
  readonly size: number;
  private readonly id: Int32Array;
  private readonly x: Float64Array;
  private readonly y: Float64Array;
  private readonly z: Float64Array;
  private readonly reach: Float64Array;
  private readonly rating: Float64Array;
  private readonly ratingCount: Int32Array;
  private readonly fee: Int32Array;
  private readonly time: Int32Array;
  private readonly category: Int32Array;
  private readonly free: Uint8Array;
  private readonly zone: Uint16Array;
  /** Every time zone of the stores held (an open-filter map needs no other: openAt). */
  readonly zones: readonly string[];
  /** Positions by store id: `byId` holds the positions in the order of `sortedIds`. */
  private readonly sortedIds: Int32Array;
  private readonly byId: Int32Array;
  private readonly openAt: Int32Array;
  private readonly open: Int32Array;
  private readonly offerAt: Int32Array;
  private readonly offers: Float64Array;
  /** Cell c holds stores cellAt[c] .. cellAt[c+1]-1, by reach; box: min x, y, z, max x, y, z. */
  private readonly cellAt: Int32Array;
  private readonly box: Float64Array;
  /** Runs of BLOCK consecutive cells (kdCells lists neighbours together): their box and largest reach, to pass over far ones at once. */
  private readonly blockBox: Float64Array;
  private readonly blockReach: Float64Array;
  private readonly blockMinReach: Float64Array;
  /** Scratch for one query (Node runs one at a time): matching stores and their chords. */
  private readonly hit: Int32Array;
  private readonly chord: Float64Array;
  private readonly cellNear: Float64Array;
  private readonly bestOf = {} as Record<ReachSort, Int32Array>;
  private readonly ranked = {} as Record<ReachSort, { cells: Int32Array; groupAt: Int32Array }>;
  private readonly cellFar: Float64Array;
  /** The current query (set by match). */
  private point: [number, number, number] = [0, 0, 0];
  private readonly filter = {
    rating: false,
    minRating: 0,
    category: false,
    categoryId: 0,
    free: false,
    open: false,
    offer: false,
    offerAt: 0,
  };
  private limit = Infinity;
  private filtered = false;
  /** Open filter: each zone's seconds from Sunday (-1: not in the map); per store 0 unknown, 1 closed, 2 open. */
  private zoneTime = new Int32Array(0);
  private readonly openState: Uint8Array;
  /** The clock map set last (zoneClocks keeps one per second) and, per zone, which interval between its stores' period boundaries its time is in. */
  private openMap: Map<string, number> | null = null;
  private zoneSpan = new Int32Array(0);
  private readonly zoneBounds: Float64Array[];
  /** Counting structures of the filters (reach-counts.ts): running counts of free delivery, each category's positions, rating ranks. */
  private readonly freeAt: Int32Array;
  private readonly categoryAt: Map<number, Int32Array>;
  private readonly ratings: Float64Array;
  private readonly ratingRanks: WaveletMatrix;
  /** Running counts of open stores (null until a count needs them, again after the states change). */
  private openAtCount: Int32Array | null = null;
  private readonly openCounts: Int32Array;
  /** Running counts of stores with an offer live, valid while the instant is in interval `offerSpan` of `offerBounds`. */
  private readonly offerBounds: Float64Array;
  private offerSpan = -1;
  private readonly offerCounts: Int32Array;
  private countBy = COUNT_ALL;
  private countKey = 0;
  private countList: Int32Array = new Int32Array(0);

  constructor(
    stores: ReachStore[] | ReachColumns,
    /** The store_reach_version this copy was read at. */
    readonly version: string,
  ) {
    const input = Array.isArray(stores) ? columnsOf(stores) : stores;
    const n = (this.size = input.id.length);
    // Typed arrays and index permutations throughout: a million store objects sorted and
    // copied by closures took minutes and gigabytes to index (docs/perf/2026-11-23-nearby.md "The reach
    // index's start-up at 1 000 000 stores").
    const { order, cellAt } = kdCells(input);
    const cellCount = cellAt.length - 1;
    this.cellAt = cellAt;
    this.box = new Float64Array(cellCount * 6);
    const pick = <T extends Int32Array | Float64Array | Uint8Array>(from: T): T => {
      const out = new (from.constructor as new (n: number) => T)(n);
      for (let i = 0; i < n; i++) out[i] = from[order[i]];
      return out;
    };
    this.id = pick(input.id);
    this.x = pick(input.x);
    this.y = pick(input.y);
    this.z = pick(input.z);
    this.reach = pick(input.reach);
    this.rating = pick(input.rating);
    this.ratingCount = pick(input.ratingCount);
    this.fee = pick(input.fee);
    this.time = pick(input.time);
    this.category = pick(input.category);
    this.free = pick(input.free);
    for (let c = 0; c < cellCount; c++) {
      const box = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
      for (let i = cellAt[c]; i < cellAt[c + 1]; i++) {
        box[0] = Math.min(box[0], this.x[i]);
        box[1] = Math.min(box[1], this.y[i]);
        box[2] = Math.min(box[2], this.z[i]);
        box[3] = Math.max(box[3], this.x[i]);
        box[4] = Math.max(box[4], this.y[i]);
        box[5] = Math.max(box[5], this.z[i]);
      }
      this.box.set(box, c * 6);
    }
    // Zones numbered in the order of the positions (a zone's first store first).
    const zones: string[] = [];
    const zoneNumber = new Int32Array(input.zones.length).fill(-1);
    this.zone = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const z = input.zone[order[i]];
      if (zoneNumber[z] < 0) zoneNumber[z] = zones.push(input.zones[z]) - 1;
      this.zone[i] = zoneNumber[z];
    }
    this.zones = zones;
    [this.openAt, this.open] = reorderRagged(order, input.openAt, input.open);
    [this.offerAt, this.offers] = reorderRagged(order, input.offerAt, input.offers);
    // Ids are unique (primary keys): sort them, then find each position's id among them.
    this.sortedIds = Int32Array.from(this.id).sort();
    this.byId = new Int32Array(n);
    for (let i = 0; i < n; i++) this.byId[lowerBoundInt(this.sortedIds, this.id[i])] = i;
    this.hit = new Int32Array(n);
    this.chord = new Float64Array(n);
    this.openState = new Uint8Array(n);
    for (const sort of REACH_SORTS) this.rankCells(sort);
    this.cellNear = new Float64Array(cellCount);
    this.cellFar = new Float64Array(cellCount);
    const blocks = Math.ceil(cellCount / BLOCK);
    this.blockBox = new Float64Array(blocks * 6);
    this.blockReach = new Float64Array(blocks);
    this.blockMinReach = new Float64Array(blocks).fill(Infinity);
    for (let b = 0; b < blocks; b++) {
      for (let k = 0; k < 3; k++) {
        this.blockBox[b * 6 + k] = Infinity;
        this.blockBox[b * 6 + k + 3] = -Infinity;
      }
      for (let c = b * BLOCK; c < Math.min((b + 1) * BLOCK, cellCount); c++) {
        for (let k = 0; k < 3; k++) {
          this.blockBox[b * 6 + k] = Math.min(this.blockBox[b * 6 + k], this.box[c * 6 + k]);
          this.blockBox[b * 6 + k + 3] = Math.max(this.blockBox[b * 6 + k + 3], this.box[c * 6 + k + 3]);
        }
        this.blockReach[b] = Math.max(this.blockReach[b], this.reach[this.cellAt[c + 1] - 1]);
        this.blockMinReach[b] = Math.min(this.blockMinReach[b], this.reach[this.cellAt[c]]);
      }
    }
    // The filters' counting structures: a certain run of a cell is counted, not tested store by store.
    this.freeAt = prefixCounts(n, (i) => this.free[i] === 1);
    this.categoryAt = positionsByValue(this.category);
    this.ratings = distinctSorted(this.rating);
    const rankOf = (r: number) => (Number.isNaN(r) ? 0 : 1 + lowerBound(this.ratings, 0, this.ratings.length, r));
    this.ratingRanks = new WaveletMatrix(Int32Array.from(this.rating, rankOf), this.ratings.length);
    this.openCounts = new Int32Array(n + 1);
    this.offerCounts = new Int32Array(n + 1);
    // An open state can only change when a zone's clock passes one of its stores' period boundaries; an offer's at one of the offers' bounds.
    const bounds = zones.map(() => new Set<number>());
    for (let i = 0; i < n; i++) for (let k = this.openAt[i]; k < this.openAt[i + 1]; k++) bounds[this.zone[i]].add(this.open[k]);
    this.zoneBounds = bounds.map((set) => distinctSorted(Float64Array.from(set)));
    this.offerBounds = distinctSorted(this.offers);
  }

  /** Bytes held by the typed arrays (the measure of the index's memory). */
  get bytes(): number {
    const arrays = [
      this.id,
      this.x,
      this.y,
      this.z,
      this.reach,
      this.rating,
      this.ratingCount,
      this.fee,
      this.time,
      this.category,
      this.free,
      this.zone,
    ];
    return [
      ...arrays,
      this.openAt,
      this.open,
      this.offerAt,
      this.offers,
      this.cellAt,
      this.box,
      this.sortedIds,
      this.byId,
      this.hit,
      this.chord,
      this.openState,
      this.freeAt,
      this.ratings,
      this.openCounts,
      this.offerCounts,
      this.offerBounds,
      ...this.zoneBounds,
      ...this.categoryAt.values(),
    ].reduce((sum, a) => sum + a.byteLength, this.ratingRanks.bytes);
  }

  /**
   * How many stores match and which of them can be on the page `offset .. offset + limit` of
   * `sort` (ties: nearer, then lower id); null when a store is too close to its boundary to
   * decide here. PostgreSQL's exact sort of the candidates, skipping `skip`, gives the page.
   */
  page(q: ReachQuery, sort: ReachSort, offset: number, limit: number): ReachPage | null {
    const total = this.match(q, false);
    if (total === null) return null;
    const want = Math.min(offset + limit, total);
    if (offset >= want) return { total, candidates: [], skip: 0 };
    const before = this.comparator(sort);
    // Deep pages (rare) list and sort every match; the others only the cells that can hold them.
    const listed = want > TOP_MAX ? this.match(q, true) : this.listBest(sort, want, before);
    if (listed === null) return null;
    const key = this.key(sort);
    const tied = (a: number, b: number) => key(a, b) === 0 && Math.abs(this.distance(a) - this.distance(b)) <= TIE_M;
    const top = this.best(listed, want, before);
    // Same key and chords within TIE_M: PostgreSQL's exact distances may order them either
    // way. So the candidates add the stores ranked after the last one kept but tied with it,
    // and start at the first store tied with the page's first.
    const last = top[want - 1];
    const candidates = [...top];
    for (let k = 0; k < listed; k++) {
      const i = this.hit[k];
      if (before(last, i) < 0 && tied(last, i)) candidates.push(i);
    }
    let first = offset;
    while (first > 0 && tied(top[first - 1], top[offset])) first--;
    return { total, candidates: candidates.slice(first).map((i) => this.id[i]), skip: offset - first };
  }

  /**
   * For each sort: each cell's best store (its key bounds every store of the cell), and the
   * cells in the order of those keys, cut into groups of equal key.
   */
  private rankCells(sort: ReachSort): void {
    const key = this.key(sort);
    const cellCount = this.cellAt.length - 1;
    const bestOf = new Int32Array(cellCount);
    for (let c = 0; c < cellCount; c++) {
      let best = this.cellAt[c];
      for (let i = best + 1; i < this.cellAt[c + 1]; i++) if (key(i, best) < 0) best = i;
      bestOf[c] = best;
    }
    const cells = Int32Array.from({ length: cellCount }, (_, c) => c).sort((a, b) => key(bestOf[a], bestOf[b]));
    const groupAt = [0];
    for (let k = 1; k <= cellCount; k++) if (k === cellCount || key(bestOf[cells[k - 1]], bestOf[cells[k]]) !== 0) groupAt.push(k);
    this.bestOf[sort] = bestOf;
    this.ranked[sort] = { cells, groupAt: Int32Array.from(groupAt) };
  }

  /** How many stores match (the same as page(...).total, without ranking them). */
  count(q: ReachQuery): number | null {
    return this.match(q, false);
  }

  /**
   * The ids of the stores that match, in no order, when at most `atMost` do (counted first, as
   * `count`, so a point where many match costs no more than counting them); null when more
   * do, or when a store is too close to its boundary to call. The home screen where few
   * stores deliver (home-query.ts homeListing).
   */
  matchingIds(q: ReachQuery, atMost: number): number[] | null {
    const total = this.match(q, false);
    if (total === null || total > atMost) return null;
    const listed = total === 0 ? 0 : this.match(q, true);
    if (listed === null) return null;
    return Array.from(this.hit.subarray(0, listed), (i) => this.id[i]);
  }

  /** Sets the query's point, radius and filters (match, countAmong). */
  private prepare(q: ReachQuery): void {
    this.point = earthPoint(q.lat, q.lng);
    // The query's filters in one shape (queries come in many: passes runs per store).
    const f = this.filter;
    f.rating = q.minRating !== undefined;
    f.minRating = q.minRating ?? 0;
    f.category = q.categoryId !== undefined;
    f.categoryId = q.categoryId ?? 0;
    f.free = Boolean(q.freeDelivery);
    f.open = Boolean(q.openAt);
    f.offer = q.offerAt !== undefined;
    f.offerAt = q.offerAt ?? 0;
    this.limit = q.radiusKm === undefined ? Infinity : chordOf(q.radiusKm * 1000);
    this.filtered = filtersStores(q);
    if (q.openAt) this.openAtTimes(q.openAt);
  }

  /**
   * How many of the stores `ids` match (ids not held count none), tested one by one; null if
   * one is too close to its boundary to call. A patched copy (reach-patch.ts) takes the stores
   * changed since this copy was read out of its counts with it.
   */
  countAmong(q: ReachQuery, ids: Iterable<number>): number | null {
    this.prepare(q);
    const [px, py, pz] = this.point;
    let n = 0;
    for (const id of ids) {
      const i = this.position(id);
      if (i < 0) continue;
      const dx = this.x[i] - px;
      const dy = this.y[i] - py;
      const dz = this.z[i] - pz;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz); // as scan measures it
      const bound = Math.min(this.reach[i], this.limit);
      if (d > bound + UNSURE_M || (this.filtered && !this.passes(i))) continue;
      if (d >= bound - UNSURE_M) return null;
      n++;
    }
    return n;
  }

  /** Whether this copy holds store `id`. */
  holds(id: number): boolean {
    return this.position(id) >= 0;
  }

  /**
   * How many stores match; with `collect`, also lists them in `hit` (chords of the stores in
   * reach for certain are measured later, only if a sort needs them). Null if one is too
   * close to its boundary to call. Leaves each cell's nearest and farthest distance in
   * `cellNear`/`cellFar` (nearest Infinity: nothing there can match).
   */
  private match(q: ReachQuery, collect: boolean): number | null {
    this.prepare(q);
    const [px, py, pz] = this.point;
    this.countBy = this.filtered ? this.countingFilter(q) : COUNT_ALL;
    const { cellAt, cellNear, limit, blockBox, blockReach, blockMinReach } = this;
    const counting = !collect && this.countBy !== COUNT_EACH;
    let n = 0;
    for (let c = 0; c < cellNear.length; c++) {
      if (c % BLOCK === 0) {
        const k = (c / BLOCK) * 6;
        const next = Math.min(c + BLOCK, cellNear.length);
        const bx = px < blockBox[k] ? blockBox[k] - px : px > blockBox[k + 3] ? px - blockBox[k + 3] : 0;
        const by = py < blockBox[k + 1] ? blockBox[k + 1] - py : py > blockBox[k + 4] ? py - blockBox[k + 4] : 0;
        const bz = pz < blockBox[k + 2] ? blockBox[k + 2] - pz : pz > blockBox[k + 5] ? pz - blockBox[k + 5] : 0;
        // A block nearer to nothing than its largest reach: so is each of its cells (a cell's box lies in its block's).
        if (Math.sqrt(bx * bx + by * by + bz * bz) > Math.min(blockReach[c / BLOCK], limit) + UNSURE_M) {
          cellNear.fill(Infinity, c, next);
          c = next - 1;
          continue;
        }
        if (counting) {
          // Every store of the block in reach for certain (its smallest reach beyond the block's
          // farthest corner): then so is each in its cell, and the block's stores, one run of
          // positions, are counted at once. The cells' distances are still kept for listBest.
          const fx = Math.max(px - blockBox[k], blockBox[k + 3] - px);
          const fy = Math.max(py - blockBox[k + 1], blockBox[k + 4] - py);
          const fz = Math.max(pz - blockBox[k + 2], blockBox[k + 5] - pz);
          if (Math.sqrt(fx * fx + fy * fy + fz * fz) + UNSURE_M <= Math.min(blockMinReach[c / BLOCK], limit)) {
            for (let cell = c; cell < next; cell++) this.measureCell(cell, px, py, pz);
            n += this.countIn(cellAt[c], cellAt[next]);
            c = next - 1;
            continue;
          }
        }
      }
      if (!this.measureCell(c, px, py, pz)) continue;
      const found = this.scan(c, collect, n);
      if (found === null) return null;
      n = found;
    }
    return n;
  }

  /** Sets cell c's nearest and farthest distance from the point; false (nearest Infinity) when nothing there can match. */
  private measureCell(c: number, px: number, py: number, pz: number): boolean {
    const { box, cellNear, cellFar, reach, cellAt } = this;
    const b = c * 6;
    // Per axis: the box's gap to the point (near) and its far side's distance (far).
    const nx = px < box[b] ? box[b] - px : px > box[b + 3] ? px - box[b + 3] : 0;
    const ny = py < box[b + 1] ? box[b + 1] - py : py > box[b + 4] ? py - box[b + 4] : 0;
    const nz = pz < box[b + 2] ? box[b + 2] - pz : pz > box[b + 5] ? pz - box[b + 5] : 0;
    const near = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (near > Math.min(reach[cellAt[c + 1] - 1], this.limit) + UNSURE_M) {
      cellNear[c] = Infinity;
      return false;
    }
    const fx = Math.max(px - box[b], box[b + 3] - px);
    const fy = Math.max(py - box[b + 1], box[b + 4] - py);
    const fz = Math.max(pz - box[b + 2], box[b + 5] - pz);
    cellNear[c] = near;
    cellFar[c] = Math.sqrt(fx * fx + fy * fy + fz * fz);
    return true;
  }

  /** Matches in cell c, listed in `hit` from position n when `collect`; n plus their number, or null. */
  private scan(c: number, collect: boolean, n: number): number | null {
    const { reach, cellAt, hit, chord, limit, filtered, x, y, z } = this;
    const [px, py, pz] = this.point;
    const end = cellAt[c + 1];
    // Reach below the nearest distance: out for certain; at least the farthest: in for certain.
    // (Both searches answer at once when the cell's first candidate already qualifies: a cell well inside reach.)
    const near = this.cellNear[c] - UNSURE_M;
    const from = reach[cellAt[c]] >= near ? cellAt[c] : lowerBound(reach, cellAt[c], end, near);
    const far = this.cellFar[c] + UNSURE_M;
    const sure = limit < far ? end : from < end && reach[from] >= far ? from : lowerBound(reach, from, end, far);
    for (let i = from; i < sure; i++) {
      const dx = x[i] - px;
      const dy = y[i] - py;
      const dz = z[i] - pz;
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      const bound = Math.min(reach[i], limit);
      if (d > bound + UNSURE_M || (filtered && !this.passes(i))) continue;
      if (d >= bound - UNSURE_M) return null;
      if (collect) {
        hit[n] = i;
        chord[i] = d;
      }
      n++;
    }
    if (!collect && this.countBy !== COUNT_EACH) return n + this.countIn(sure, end);
    if (collect && this.countBy === COUNT_CATEGORY) {
      // Only the category's own positions (ascending) of the run.
      const list = this.countList;
      for (let k = lowerBoundInt(list, sure); k < list.length && list[k] < end; k++) {
        hit[n++] = list[k];
        chord[list[k]] = NaN;
      }
      return n;
    }
    for (let i = sure; i < end; i++) {
      if (filtered && !this.passes(i)) continue;
      if (collect) {
        hit[n] = i;
        chord[i] = NaN;
      }
      n++;
    }
    return n;
  }

  /**
   * Lists the matches of the cells that can hold the first `want` of the sort, best first:
   * cells in the order of their best store's key (`ranked`), and among cells of an equal best
   * key in rings of doubling distance, until the want-th listed store is certain (every cell
   * not listed has a worse key, or the same key and a distance beyond it by TIE_M). How many
   * are listed in `hit`, or null.
   */
  private listBest(sort: ReachSort, want: number, before: (a: number, b: number) => number): number | null {
    const { cells, groupAt } = this.ranked[sort];
    const key = this.key(sort);
    const top: number[] = []; // the best `want` listed so far, in order
    let n = 0;
    for (let g = 0; g + 1 < groupAt.length; g++) {
      const groupKey = this.bestOf[sort][cells[groupAt[g]]];
      if (top.length === want && key(top[want - 1], groupKey) < 0) return n;
      let inner = -1;
      let outer = FIRST_RING_M;
      for (;;) {
        let next = Infinity; // the nearest cell of the group beyond `outer`
        const listed = n;
        for (let k = groupAt[g]; k < groupAt[g + 1]; k++) {
          const c = cells[k];
          const near = this.cellNear[c];
          if (near > inner && near <= outer) {
            const found = this.scan(c, true, n);
            if (found === null) return null;
            n = found;
          } else if (near > outer && near < next) next = near;
        }
        for (let k = listed; k < n; k++) insertInto(top, want, this.hit[k], before);
        if (top.length === want) {
          const order = key(top[want - 1], groupKey);
          if (order < 0 || (order === 0 && this.distance(top[want - 1]) + 2 * TIE_M <= next)) return n;
        }
        if (next === Infinity) break;
        inner = outer;
        outer = Math.max(outer * 2, next);
      }
    }
    return n;
  }

  /**
   * The one filter of `q` whose structure counts a run of positions (COUNT_EACH with several,
   * or a NaN rating), made ready for the query: the category's positions, the rating's rank,
   * the open or offer counts of the instant.
   */
  private countingFilter(q: ReachQuery): number {
    const asked = [q.freeDelivery, q.categoryId !== undefined, q.minRating !== undefined, Boolean(q.openAt), q.offerAt !== undefined];
    if (asked.filter(Boolean).length !== 1) return COUNT_EACH;
    const kind = [COUNT_FREE, COUNT_CATEGORY, COUNT_RATING, COUNT_OPEN, COUNT_OFFER][asked.indexOf(true)];
    switch (kind) {
      case COUNT_CATEGORY:
        this.countList = this.categoryAt.get(q.categoryId!) ?? new Int32Array(0);
        break;
      case COUNT_RATING:
        if (Number.isNaN(q.minRating)) return COUNT_EACH;
        // Ranks: 0 for NaN (never at least a rating), 1 + the index of the value among the distinct ratings.
        this.countKey = 1 + lowerBound(this.ratings, 0, this.ratings.length, q.minRating!);
        break;
      case COUNT_OPEN:
        if (!this.openAtCount) this.openAtCount = prefixCounts(this.size, (i) => this.isOpen(i), this.openCounts);
        break;
      case COUNT_OFFER: {
        const at = q.offerAt!;
        const span = countAtMost(this.offerBounds, at);
        if (span !== this.offerSpan) {
          prefixCounts(this.size, (i) => this.hasOffer(i, at), this.offerCounts);
          this.offerSpan = span;
        }
        break;
      }
    }
    return kind;
  }

  /** How many stores of positions [from, to) pass the query's filter (countBy not COUNT_EACH). */
  private countIn(from: number, to: number): number {
    switch (this.countBy) {
      case COUNT_ALL:
        return to - from;
      case COUNT_FREE:
        return this.freeAt[to] - this.freeAt[from];
      case COUNT_CATEGORY:
        return countBetween(this.countList, from, to);
      case COUNT_RATING:
        return this.ratingRanks.countAtLeast(from, to, this.countKey);
      case COUNT_OPEN:
        return this.openCounts[to] - this.openCounts[from];
      default:
        return this.offerCounts[to] - this.offerCounts[from];
    }
  }

  /** The filters other than distance, for the current query. */
  private passes(i: number): boolean {
    const f = this.filter;
    if (f.rating && !(this.rating[i] >= f.minRating)) return false;
    if (f.category && this.category[i] !== f.categoryId) return false;
    if (f.free && !this.free[i]) return false;
    if (f.open && !this.isOpen(i)) return false;
    if (f.offer && !this.hasOffer(i, f.offerAt)) return false;
    return true;
  }

  /**
   * Sets the clock map of the open filter. Whether a store is open is kept per store (and the
   * running counts of open stores) until a zone's clock passes one of the boundaries of its
   * stores' periods (store_is_open's comparisons cannot change in between): requests test each
   * store once per such interval, not once per second.
   */
  private openAtTimes(openAt: Map<string, number>): void {
    if (openAt === this.openMap) return;
    this.openMap = openAt;
    this.zoneTime = Int32Array.from(this.zones, (z) => openAt.get(z) ?? -1);
    const spans = Int32Array.from(this.zoneTime, (t, z) => (t < 0 ? -1 : countAtMost(this.zoneBounds[z], t)));
    if (spans.length === this.zoneSpan.length && spans.every((span, z) => span === this.zoneSpan[z])) return;
    this.zoneSpan = spans;
    this.openState.fill(0);
    this.openAtCount = null;
  }

  /**
   * Whether each store is open at the clock map `openAt` (store_is_open's rule on the hours
   * this copy holds); null for a store it does not hold. Only as current as the copy: the
   * caller checks the copy's version in the statement that read `ids`.
   */
  openNow(ids: readonly number[], openAt: Map<string, number>): (boolean | null)[] {
    this.openAtTimes(openAt);
    return ids.map((id) => {
      const i = this.position(id);
      return i < 0 ? null : this.isOpen(i);
    });
  }

  /** Store `id`'s position, or -1 (a binary search of the ids). */
  private position(id: number): number {
    let lo = 0;
    let hi = this.sortedIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sortedIds[mid] < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.sortedIds.length && this.sortedIds[lo] === id ? this.byId[lo] : -1;
  }

  private isOpen(i: number): boolean {
    let state = this.openState[i];
    if (state === 0) {
      const t = this.zoneTime[this.zone[i]];
      state = 1; // closed; also when the map lacks the store's zone (t < 0)
      if (t >= 0) for (let k = this.openAt[i]; k < this.openAt[i + 1]; k += 2) if (this.open[k] <= t && t < this.open[k + 1]) state = 2;
      this.openState[i] = state;
    }
    return state === 2;
  }

  private hasOffer(i: number, at: number): boolean {
    for (let k = this.offerAt[i]; k < this.offerAt[i + 1]; k += 2) if (this.offers[k] <= at && at < this.offers[k + 1]) return true;
    return false;
  }

  /** The chord from the query's point to store i, measured on first need. */
  private distance(i: number): number {
    if (Number.isNaN(this.chord[i])) {
      const [px, py, pz] = this.point;
      const dx = this.x[i] - px;
      const dy = this.y[i] - py;
      const dz = this.z[i] - pz;
      this.chord[i] = Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
    return this.chord[i];
  }

  /** The sort's order on the index's own chords: negative when store a comes first. */
  private comparator(sort: ReachSort): (a: number, b: number) => number {
    const key = this.key(sort);
    return (a, b) => key(a, b) || this.distance(a) - this.distance(b) || this.id[a] - this.id[b];
  }

  private key(sort: ReachSort): (a: number, b: number) => number {
    switch (sort) {
      case 'distance':
        return () => 0;
      case 'rating':
        return (a, b) => this.rating[b] - this.rating[a] || this.ratingCount[b] - this.ratingCount[a];
      case 'delivery_fee':
        return (a, b) => this.fee[a] - this.fee[b];
      case 'delivery_time':
        return (a, b) => this.time[a] - this.time[b];
    }
  }

  /** The first `want` of the first `listed` matches in the comparator's order. */
  private best(listed: number, want: number, before: (a: number, b: number) => number): number[] {
    if (want > TOP_MAX) return Array.from(this.hit.subarray(0, listed)).sort(before).slice(0, want);
    const top: number[] = [];
    for (let k = 0; k < listed; k++) insertInto(top, want, this.hit[k], before);
    return top;
  }
}

/** Puts i into `top` (sorted by `before`, at most `want` long) if it belongs there. */
function insertInto(top: number[], want: number, i: number, before: (a: number, b: number) => number): void {
  if (top.length === want && before(i, top[want - 1]) >= 0) return;
  let at = top.length === want ? want - 1 : top.length;
  while (at > 0 && before(i, top[at - 1]) < 0) {
    top[at] = top[at - 1];
    at--;
  }
  top[at] = i;
}

/** The first index in [from, to) whose value is at least `v` (values ascending). */
function lowerBound(values: Float64Array, from: number, to: number, v: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Per-store lists flattened (offsets n + 1, values), taken in the order of `order`. */
function reorderRagged<T extends Int32Array | Float64Array>(order: Int32Array, inAt: Int32Array, inValues: T): [Int32Array, T] {
  const n = order.length;
  const at = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) at[i + 1] = at[i] + inAt[order[i] + 1] - inAt[order[i]];
  const values = new (inValues.constructor as new (n: number) => T)(at[n]);
  for (let i = 0; i < n; i++) values.set(inValues.subarray(inAt[order[i]], inAt[order[i] + 1]), at[i]);
  return [at, values];
}

/** The columns of store objects (tests and scripts build the index from objects; the loader reads columns). */
export function columnsOf(stores: ReachStore[]): ReachColumns {
  const n = stores.length;
  const columns = emptyColumns(n);
  const zoneOf = new Map<string, number>();
  const open: number[] = [];
  const offers: number[] = [];
  stores.forEach((s, i) => {
    setStore(columns, i, s);
    let z = zoneOf.get(s.timezone);
    if (z === undefined) zoneOf.set(s.timezone, (z = columns.zones.push(s.timezone) - 1));
    columns.zone[i] = z;
    open.push(...s.open);
    columns.openAt[i + 1] = open.length;
    offers.push(...s.offers);
    columns.offerAt[i + 1] = offers.length;
  });
  columns.open = Int32Array.from(open);
  columns.offers = Float64Array.from(offers);
  return columns;
}

/** Columns for n stores, their lists empty (the caller fills them). */
export function emptyColumns(n: number): ReachColumns {
  return {
    id: new Int32Array(n),
    x: new Float64Array(n),
    y: new Float64Array(n),
    z: new Float64Array(n),
    reach: new Float64Array(n),
    lat: new Float64Array(n),
    lng: new Float64Array(n),
    rating: new Float64Array(n),
    ratingCount: new Int32Array(n),
    fee: new Int32Array(n),
    time: new Int32Array(n),
    category: new Int32Array(n),
    free: new Uint8Array(n),
    zone: new Uint16Array(n),
    zones: [],
    openAt: new Int32Array(n + 1),
    open: new Int32Array(0),
    offerAt: new Int32Array(n + 1),
    offers: new Float64Array(0),
  };
}

/** Store i's scalar columns (not its zone or lists). */
export function setStore(c: ReachColumns, i: number, s: Omit<ReachStore, 'timezone' | 'open' | 'offers'>): void {
  c.id[i] = s.id;
  c.x[i] = s.x;
  c.y[i] = s.y;
  c.z[i] = s.z;
  c.reach[i] = s.reach;
  c.lat[i] = s.lat;
  c.lng[i] = s.lng;
  c.rating[i] = s.rating;
  c.ratingCount[i] = s.ratingCount;
  c.fee[i] = s.fee;
  c.time[i] = s.deliveryTime;
  c.category[i] = s.categoryId ?? -1;
  c.free[i] = s.freeDelivery ? 1 : 0;
}

/**
 * Stores grouped into cells of about the same number of stores: the city is cut in two at the
 * median of its longer side (latitude or longitude, in degrees scaled to distance), and each
 * half again, until a part holds at most the target (√n/2 stores, at least CELL_TARGET). A
 * square grid put thousands of stores in one cell of a dense centre: every query there
 * measured or listed all of them (docs/perf/2026-11-23-nearby.md "Nearby's CPU per request").
 * In each cell the stores are in the order of their reach (equal reaches: as the cuts left them).
 * `order`: the input index of each position; cell c holds positions cellAt[c] .. cellAt[c+1]-1.
 */
function kdCells({ lat, lng, reach }: ReachColumns): { order: Int32Array; cellAt: Int32Array } {
  const n = lat.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const cellAt = [0];
  // Cells grow with the city (√n/2 stores each, at least CELL_TARGET; √n/4 and √n measured slower
  // or no better at the centre and at random points): their number grows as √n,
  // and so do the stores measured one by one at the cells' edges (n · cell side ∝ n^¾).
  const perCell = Math.max(CELL_TARGET, Math.sqrt(n) / 2);
  const split = (from: number, to: number): void => {
    if (to - from <= perCell) {
      // A stable sort by reach (ties keep their order).
      const cell = Array.from(order.subarray(from, to));
      const rank = new Map(cell.map((i, k) => [i, k]));
      cell.sort((a, b) => reach[a] - reach[b] || rank.get(a)! - rank.get(b)!);
      order.set(cell, from);
      cellAt.push(to);
      return;
    }
    let [minLat, maxLat, minLng, maxLng] = [Infinity, -Infinity, Infinity, -Infinity];
    for (let k = from; k < to; k++) {
      const i = order[k];
      minLat = Math.min(minLat, lat[i]);
      maxLat = Math.max(maxLat, lat[i]);
      minLng = Math.min(minLng, lng[i]);
      maxLng = Math.max(maxLng, lng[i]);
    }
    const byLat = maxLat - minLat >= (maxLng - minLng) * Math.cos((((minLat + maxLat) / 2) * Math.PI) / 180);
    const half = (to - from) >>> 1;
    selectNth(order, from, to - 1, from + half, byLat ? lat : lng);
    split(from, from + half);
    split(from + half, to);
  };
  if (n > 0) split(0, n);
  return { order, cellAt: Int32Array.from(cellAt) };
}

/** Reorders items[lo..hi] so that the one at `nth` is where a sort by `value` puts it, none before it greater, none after it smaller (quickselect: no full sort per cut). */
function selectNth(items: Int32Array, lo: number, hi: number, nth: number, value: Float64Array): void {
  while (lo < hi) {
    const pivot = value[items[(lo + hi) >>> 1]];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (value[items[i]] < pivot) i++;
      while (value[items[j]] > pivot) j--;
      if (i <= j) {
        const t = items[i];
        items[i] = items[j];
        items[j] = t;
        i++;
        j--;
      }
    }
    if (nth <= j) hi = j;
    else if (nth >= i) lo = i;
    else return;
  }
}
