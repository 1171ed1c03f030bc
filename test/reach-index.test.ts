/**
 * The reach index's own rules, without a database: the week intervals of opening hours match
 * store_is_open's rule (past midnight, Saturday into Sunday), and a store whose boundary is
 * within a micrometre of the point is left to PostgreSQL (null) rather than guessed.
 * Its answers against PostgreSQL: test/nearby-equivalence.test.ts.
 */
import {
  chordOf,
  earthPoint,
  openPeriods,
  ReachAnswers,
  ReachIndex,
  ReachQuery,
  ReachSort,
  ReachStore,
  REACH_SORTS,
  weekSeconds,
} from '../src/modules/stores/reach/reach-index';
import { PatchedReachIndex } from '../src/modules/stores/reach/reach-patch';
import { WaveletMatrix } from '../src/modules/stores/reach/reach-counts';
import { Random } from '../src/db/seed/random';

const DAY = 86400;

function store(id: number, lat: number, lng: number, reach: number, extra: Partial<ReachStore> = {}): ReachStore {
  const [x, y, z] = earthPoint(lat, lng);
  return {
    id,
    x,
    y,
    z,
    reach,
    lat,
    lng,
    rating: 4,
    ratingCount: 1,
    freeDelivery: false,
    fee: 100,
    deliveryTime: 30,
    categoryId: null,
    timezone: 'UTC',
    open: [],
    offers: [],
    ...extra,
  };
}

/**
 * Pages of `stores` from the index against every match sorted straightforwardly (sort key, chord, id), at random
 * points near them with random filters: the candidates, sorted exactly and cut at `skip`, are the reference's page,
 * and the total its count. How many queries the index answered (null: a store at its boundary, PostgreSQL's).
 */
function checkPages(stores: ReachStore[], rnd: Random, queries: number, index: ReachAnswers = new ReachIndex(stores, '1')): number {
  let compared = 0;
  for (let k = 0; k < queries; k++) {
    const s0 = stores.length ? stores[rnd.int(0, stores.length - 1)] : store(0, 33.5, -7.5, 1);
    const q: ReachQuery = { lat: s0.lat + rnd.float(-0.05, 0.05), lng: s0.lng + rnd.float(-0.05, 0.05) };
    if (rnd.next() < 0.3) q.radiusKm = rnd.int(1, 10);
    if (rnd.next() < 0.2) q.minRating = [0, 3, 4, 4.5, 5][rnd.int(0, 4)];
    if (rnd.next() < 0.2) q.categoryId = rnd.int(1, 3);
    if (rnd.next() < 0.2) q.freeDelivery = true;
    if (rnd.next() < 0.2) q.openAt = new Map([['UTC', rnd.int(0, 7 * 24) * 3600]]);
    if (rnd.next() < 0.2) q.offerAt = rnd.int(0, 4) * 1000;
    const [px, py, pz] = earthPoint(q.lat, q.lng);
    const limit = q.radiusKm === undefined ? Infinity : chordOf(q.radiusKm * 1000);
    const d = (s: ReachStore) => Math.hypot(s.x - px, s.y - py, s.z - pz);
    const matches = stores.filter(
      (s) =>
        d(s) <= Math.min(s.reach, limit) &&
        (q.minRating === undefined || s.rating >= q.minRating) &&
        (q.categoryId === undefined || s.categoryId === q.categoryId) &&
        (!q.freeDelivery || s.freeDelivery) &&
        (!q.openAt || s.open.some((v, k) => k % 2 === 0 && v <= q.openAt!.get('UTC')! && q.openAt!.get('UTC')! < s.open[k + 1])) &&
        (q.offerAt === undefined || s.offers.some((v, k) => k % 2 === 0 && v <= q.offerAt! && q.offerAt! < s.offers[k + 1])),
    );
    const sort: ReachSort = REACH_SORTS[rnd.int(0, 3)];
    const key = (a: ReachStore, b: ReachStore) =>
      sort === 'rating'
        ? b.rating - a.rating || b.ratingCount - a.ratingCount
        : sort === 'delivery_fee'
          ? a.fee - b.fee
          : sort === 'delivery_time'
            ? a.deliveryTime - b.deliveryTime
            : 0;
    const cmp = (a: ReachStore, b: ReachStore) => key(a, b) || d(a) - d(b) || a.id - b.id;
    const ordered = [...matches].sort(cmp);
    const offset = rnd.int(0, Math.max(0, matches.length + 2));
    const lim = rnd.int(1, 30);
    const page = index.page(q, sort, offset, lim);
    if (page === null) continue;
    expect([k, page.total]).toEqual([k, matches.length]);
    const byId = new Map(stores.map((s) => [s.id, s]));
    const got = page.candidates
      .map((id) => byId.get(id)!)
      .sort(cmp)
      .slice(page.skip, page.skip + lim)
      .map((s) => s.id);
    expect([k, got]).toEqual([k, ordered.slice(offset, offset + lim).map((s) => s.id)]);
    compared++;
  }
  return compared;
}

describe('reach index', () => {
  it('turns opening hours into week intervals like store_is_open', () => {
    const periods = openPeriods([
      { day: 1, opens: 9 * 3600, closes: 17 * 3600, pastMidnight: false },
      { day: 6, opens: 18 * 3600, closes: 2 * 3600, pastMidnight: true },
    ]);
    expect(periods).toEqual([DAY + 9 * 3600, DAY + 17 * 3600, 6 * DAY + 18 * 3600, 7 * DAY, 0, 2 * 3600]);
    // 2026-03-08 is a Sunday: 01:30 is inside Saturday's period past midnight.
    expect(weekSeconds('2026-03-08T01:30:00')).toBe(5400);
    expect(weekSeconds('2026-03-09T09:00:00')).toBe(DAY + 9 * 3600);
    expect(weekSeconds('2026-03-09T09:00:00.5')).toBeNull();
  });

  it('counts, filters and ranks a small city', () => {
    const stores = [
      store(1, 33.5, -7.5, 3000),
      store(2, 33.51, -7.5, 3000, { rating: 5 }),
      store(3, 33.6, -7.5, 3000),
      store(4, 33.5, -7.51, 50_000, { freeDelivery: true, fee: 0 }),
    ];
    const index = new ReachIndex(stores, '1');
    const q = { lat: 33.5, lng: -7.5 };
    expect(index.count(q)).toBe(3);
    expect(index.count({ ...q, freeDelivery: true })).toBe(1);
    expect(index.count({ ...q, radiusKm: 1 })).toBe(2);
    expect(index.page(q, 'rating', 0, 2)).toEqual({ total: 3, candidates: [2, 1], skip: 0 });
    expect(index.page(q, 'distance', 1, 1)).toEqual({ total: 3, candidates: [4], skip: 0 });
    expect(index.page(q, 'delivery_fee', 5, 10)).toEqual({ total: 3, candidates: [], skip: 0 });
    // The matches' ids when at most so many match (the home screen where few deliver).
    expect(index.matchingIds(q, 3)?.sort()).toEqual([1, 2, 4]);
    expect(index.matchingIds(q, 2)).toBeNull();
    expect(index.matchingIds({ lat: 10, lng: 10 }, 0)).toEqual([]);
  });

  it('lists the ids of every match, like counting them, in a random city', () => {
    const rnd = new Random(31);
    const stores = Array.from({ length: 3000 }, (_, k) =>
      store(k + 1, 33.5 + (rnd.next() - 0.5) * 0.6, -7.5 + (rnd.next() - 0.5) * 0.6, 1000 + rnd.next() * 9000),
    );
    const index = new ReachIndex(stores, '1');
    let listed = 0;
    for (let k = 0; k < 200; k++) {
      const q = { lat: 33.5 + (rnd.next() - 0.5) * 0.8, lng: -7.5 + (rnd.next() - 0.5) * 0.8 };
      const total = index.count(q);
      const page = total === null || total === 0 ? null : index.page(q, 'distance', 0, total);
      const ids = index.matchingIds(q, 3000);
      if (total === null) {
        expect(ids).toBeNull();
        continue;
      }
      expect([...ids!].sort((a, b) => a - b)).toEqual([...(page?.candidates ?? [])].sort((a, b) => a - b));
      expect(index.matchingIds(q, total - 1)).toBeNull();
      if (total > 0) listed++;
    }
    expect(listed).toBeGreaterThan(100);
  });

  it('tells which stores it holds are open at a clock map, by id', () => {
    const hours = openPeriods([{ day: 3, opens: 9 * 3600, closes: 17 * 3600, pastMidnight: false }]);
    const index = new ReachIndex(
      [
        store(7, 33.5, -7.5, 3000, { open: hours }),
        store(3, 33.51, -7.5, 3000, { open: hours, timezone: 'Asia/Tokyo' }),
        store(5, 33.6, -7.5, 3000),
      ],
      '1',
    );
    expect(index.zones).toEqual(expect.arrayContaining(['UTC', 'Asia/Tokyo']));
    const noon = 3 * DAY + 12 * 3600;
    expect(
      index.openNow(
        [7, 3, 5, 4],
        new Map([
          ['UTC', noon],
          ['Asia/Tokyo', noon + 9 * 3600],
        ]),
      ),
    ).toEqual([true, false, false, null]);
    // A zone missing from the map reads as closed, like store_is_open.
    expect(index.openNow([3, 7], new Map([['UTC', noon]]))).toEqual([false, true]);
  });

  it('leaves a store at its very boundary to PostgreSQL', () => {
    const [px, py, pz] = earthPoint(33.5, -7.5);
    const s = store(1, 33.52, -7.5, 0);
    s.reach = Math.hypot(s.x - px, s.y - py, s.z - pz);
    const index = new ReachIndex([s, store(2, 33.5, -7.5, 5000)], '1');
    expect(index.count({ lat: 33.5, lng: -7.5 })).toBeNull();
    expect(index.count({ lat: 33.5, lng: -7.5, radiusKm: 1 })).toBe(1); // out of the radius for certain
    expect(chordOf(1000)).toBeCloseTo(1000, 3);
  });

  it('counts every filter by its structures exactly as testing each store would', () => {
    // A city of 3 000 stores with every filter's column varied; totals checked against the
    // straightforward chord test of each store, over many points, radii and instants in turn
    // (the open and offer counts are kept between queries: going back in time must rebuild them).
    const rnd = new Random(11);
    const ratings = [0, 3.5, 4.5, 4.5, 5, Number.NaN];
    const stores = Array.from({ length: 3000 }, (_, k) => {
      const hours = Array.from({ length: rnd.int(0, 3) }, () => {
        const opens = rnd.int(0, 95) * 900;
        return { day: rnd.int(0, 6), opens, closes: rnd.int(0, 95) * 900, pastMidnight: false };
      }).map((h) => ({ ...h, pastMidnight: h.closes <= h.opens }));
      const offers = rnd.next() < 0.3 ? [1000 * rnd.int(0, 100), rnd.next() < 0.2 ? Infinity : 1000 * rnd.int(100, 200)] : [];
      return store(k + 1, 33.5 + rnd.float(-0.2, 0.2), -7.5 + rnd.float(-0.2, 0.2), rnd.float(1000, 15000), {
        rating: rnd.next() < 0.5 ? ratings[rnd.int(0, 5)] : rnd.float(0, 5),
        freeDelivery: rnd.next() < 0.3,
        categoryId: rnd.next() < 0.1 ? null : rnd.int(1, 6),
        timezone: rnd.next() < 0.5 ? 'UTC' : 'Asia/Tokyo',
        open: openPeriods(hours),
        offers,
      });
    });
    const index = new ReachIndex(stores, '1');
    const opensAt = (s: ReachStore, t: number) => s.open.some((v, k) => k % 2 === 0 && v <= t && t < s.open[k + 1]);
    const reference = (q: ReachQuery): number => {
      const [px, py, pz] = earthPoint(q.lat, q.lng);
      const limit = q.radiusKm === undefined ? Infinity : chordOf(q.radiusKm * 1000);
      return stores.filter((s) => {
        if (Math.hypot(s.x - px, s.y - py, s.z - pz) > Math.min(s.reach, limit)) return false;
        if (q.minRating !== undefined && !(s.rating >= q.minRating)) return false;
        if (q.categoryId !== undefined && s.categoryId !== q.categoryId) return false;
        if (q.freeDelivery && !s.freeDelivery) return false;
        const t = q.openAt?.get(s.timezone);
        if (q.openAt && (t === undefined || !opensAt(s, t))) return false;
        if (q.offerAt !== undefined && !s.offers.some((v, k) => k % 2 === 0 && v <= q.offerAt! && q.offerAt! < s.offers[k + 1]))
          return false;
        return true;
      }).length;
    };
    let compared = 0;
    for (let k = 0; k < 400; k++) {
      const week = rnd.int(0, 7 * 96 - 1) * 900 + rnd.int(0, 2) * 450;
      const filters: Partial<ReachQuery>[] = [
        {},
        { freeDelivery: true },
        { categoryId: rnd.int(0, 7) },
        { minRating: [0, 3.5, 4.5, 4.6, 5, 5.5][rnd.int(0, 5)] },
        { minRating: rnd.float(0, 5) },
        {
          openAt: new Map([
            ['UTC', week],
            ['Asia/Tokyo', (week + 9 * 3600) % (7 * 86400)],
          ]),
        },
        { openAt: new Map([['UTC', week]]) },
        { offerAt: 1000 * rnd.int(0, 250) },
        { freeDelivery: true, minRating: 4.5 },
      ];
      const filter = filters[k % filters.length];
      const q: ReachQuery = { lat: 33.5 + rnd.float(-0.25, 0.25), lng: -7.5 + rnd.float(-0.25, 0.25), ...filter };
      if (rnd.next() < 0.3) q.radiusKm = rnd.int(1, 10);
      const total = index.count(q);
      if (total === null) continue;
      expect([k, total]).toEqual([k, reference(q)]);
      expect(index.page(q, 'rating', 0, 5)?.total ?? total).toBe(total);
      compared++;
    }
    expect(compared).toBeGreaterThan(390);
  });

  it('pages like the full sort in degenerate cities: empty, one store, every store at one point, duplicates, a line', () => {
    const rnd = new Random(7);
    expect(checkPages([], rnd, 20)).toBe(20);
    expect(checkPages([store(5, 33.5, -7.5, 5000)], rnd, 50)).toBeGreaterThan(45);
    for (const n of [2, 33, 300, 700]) {
      // Every store at one point: all distances tie, ids and keys decide.
      const same = Array.from({ length: n }, (_, k) =>
        store(k + 1, 33.5, -7.5, [3000, 8000, 50000][k % 3], {
          rating: [3, 4, 5][k % 3],
          ratingCount: k % 2,
          fee: (k % 4) * 50,
          deliveryTime: k % 5,
          categoryId: k % 4 === 0 ? null : (k % 3) + 1,
          freeDelivery: k % 2 === 0,
          open: k % 2 ? [] : [0, (k % 7) * 86400 + 3600],
          offers: k % 3 ? [] : [1000, k % 2 ? Infinity : 3000],
        }),
      );
      expect(checkPages(same, rnd, 60)).toBeGreaterThan(50);
      // A few points shared by many stores (twins), ids descending, every filter's column varied.
      const twins = Array.from({ length: n }, (_, k) =>
        store(n * 7 - k, 33.5 + (k % 5) * 0.01, -7.5 + (k % 7) * 0.01, rnd.float(500, 20000), {
          open: rnd.next() < 0.5 ? [] : [0, rnd.int(1, 7 * 24) * 3600],
          offers: rnd.next() < 0.5 ? [] : [rnd.int(0, 3) * 1000, rnd.next() < 0.3 ? Infinity : 3000],
          rating: rnd.int(0, 10) / 2,
          ratingCount: rnd.int(0, 3),
          fee: rnd.int(0, 3) * 100,
          deliveryTime: rnd.int(10, 12),
          categoryId: rnd.next() < 0.2 ? null : rnd.int(1, 3),
          freeDelivery: rnd.next() < 0.5,
        }),
      );
      expect(checkPages(twins, rnd, 60)).toBeGreaterThan(50);
      // A line of stores (cells cut along one axis only).
      const line = Array.from({ length: n }, (_, k) =>
        store(k + 1, 33.5, -7.5 + k * 0.0005, rnd.float(500, 20000), { rating: rnd.int(0, 10) / 2 }),
      );
      expect(checkPages(line, rnd, 60)).toBeGreaterThan(50);
    }
  });

  it('pages and counts a copy patched with moved, re-rated, closed and added stores like a copy of the city as it is now', () => {
    const rnd = new Random(17);
    const city = (n: number, from = 1) =>
      Array.from({ length: n }, (_, k) =>
        store(from + k, 33.5 + rnd.float(-0.1, 0.1), -7.5 + rnd.float(-0.1, 0.1), rnd.float(1000, 15000), {
          rating: rnd.int(0, 10) / 2,
          ratingCount: rnd.int(0, 3),
          fee: rnd.int(0, 3) * 100,
          deliveryTime: rnd.int(10, 14),
          categoryId: rnd.next() < 0.2 ? null : rnd.int(1, 3),
          freeDelivery: rnd.next() < 0.5,
          open: rnd.next() < 0.5 ? [] : [0, rnd.int(1, 7 * 24) * 3600],
          offers: rnd.next() < 0.5 ? [] : [rnd.int(0, 3) * 1000, Infinity],
        }),
      );
    for (const n of [0, 40, 700]) {
      const before = city(n);
      const base = new ReachIndex(before, '1');
      for (const changes of [1, 5, 60]) {
        const now = new Map(before.map((s) => [s.id, s]));
        const changed = new Map<number, ReachStore | null>();
        for (let k = 0; k < changes; k++) {
          const kind = rnd.int(0, 3);
          if (kind === 3 || now.size === 0) {
            const [added] = city(1, 10_000 + k); // a new store
            changed.set(added.id, added);
            now.set(added.id, added);
            continue;
          }
          const id = [...now.keys()][rnd.int(0, now.size - 1)];
          if (kind === 0) {
            changed.set(id, null); // closed down or deleted
            now.delete(id);
          } else {
            // Moved, re-rated, its radius changed (and twins of another store's key, to cut through ties).
            const [moved] = city(1, id);
            changed.set(id, moved);
            now.set(id, moved);
          }
        }
        const patched = new PatchedReachIndex(base, changed, '2');
        expect(patched.size).toBe(now.size);
        // The home screen's list of who delivers, where few or many do.
        for (let k = 0; k < 20; k++) {
          const q = { lat: 33.5 + rnd.float(-0.15, 0.15), lng: -7.5 + rnd.float(-0.15, 0.15) };
          const [px, py, pz] = earthPoint(q.lat, q.lng);
          const expected = [...now.values()]
            .filter((s) => Math.hypot(s.x - px, s.y - py, s.z - pz) <= s.reach)
            .map((s) => s.id)
            .sort((a, b) => a - b);
          const atMost = rnd.int(0, 50);
          const got = patched.matchingIds(q, atMost);
          if (expected.length > atMost) expect(got).toBeNull();
          else if (got) expect(got.sort((a, b) => a - b)).toEqual(expected);
        }
        expect(checkPages([...now.values()], rnd, 80, patched)).toBeGreaterThan(70);
      }
    }
  });

  it('counts values of at least x in any run of a wavelet matrix', () => {
    const rnd = new Random(3);
    for (const max of [0, 1, 2, 5, 21, 64]) {
      const values = Int32Array.from({ length: 300 }, () => rnd.int(0, max));
      const matrix = new WaveletMatrix(values, max);
      for (let k = 0; k < 300; k++) {
        const from = rnd.int(0, 300);
        const to = rnd.int(from, 300);
        const x = rnd.int(-1, max + 2);
        expect(matrix.countAtLeast(from, to, x)).toBe(values.subarray(from, to).filter((v) => v >= x).length);
      }
    }
  });
});
