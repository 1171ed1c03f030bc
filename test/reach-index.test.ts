/**
 * The reach index's own rules, without a database: the week intervals of opening hours match
 * store_is_open's rule (past midnight, Saturday into Sunday), and a store whose boundary is
 * within a micrometre of the point is left to PostgreSQL (null) rather than guessed.
 * Its answers against PostgreSQL: test/nearby-equivalence.test.ts.
 */
import { chordOf, earthPoint, openPeriods, ReachIndex, ReachStore, weekSeconds } from '../src/modules/stores/reach-index';

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
    expect(index.openNow([7, 3, 5, 4], new Map([['UTC', noon], ['Asia/Tokyo', noon + 9 * 3600]]))).toEqual([true, false, false, null]);
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
});
