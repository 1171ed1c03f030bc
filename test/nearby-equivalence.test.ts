/**
 * Nearby's bounded queries (the in-process reach index, and the SQL path it falls back to: KNN
 * walk, index-only count; src/modules/stores/store-query.ts) answer exactly what the
 * straightforward query answers: the whole matching set counted and sorted. Both run on a
 * seeded city with co-located twins (exact distance ties), for every sort, the filters alone
 * and combined, pages from the first to past the last, at the centre, at seeded random points
 * and at sea; the index's totals also at 300 random points; and every kind of write is seen
 * by the next request.
 */
import 'reflect-metadata';
import { EntityManager } from '@mikro-orm/postgresql';
import { Database, openDatabase } from '../src/db/orm';
import { CASABLANCA, refreshAfterBulkLoad, seedDemoCity } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';
import { localTimesAt, localTimesOf } from '../src/modules/stores/local-time';
import { weekSeconds } from '../src/modules/stores/reach/reach-index';
import { readViews } from '../src/common/row-views';
import { AppEntityManager } from '../src/common/entity-manager';
import { StoreCategory } from '../src/modules/stores/store-category.entity';
import { findStoresBySql, STORE_SORTS, StoreFilter, StoreSort, storeConditions } from '../src/modules/stores/store-query';
import { reachIndex } from '../src/modules/stores/reach/reach-loader';
import { activeWindowSql } from '../src/common/active-window';
import { findStores } from '../src/modules/stores/find-stores';
import { turnReachIndexOff } from '../src/modules/stores/reach/reach';
import { openTestDatabase } from './helpers/database';

const STORES = 1000;
const NOW = new Date('2026-03-04T12:00:00Z');
let db: Database;
const em = (): EntityManager => db.orm.em.fork();

beforeAll(async () => {
  db = await openTestDatabase();
  await seedDemoCity(em(), { stores: STORES, seed: 11, now: NOW });
  // Twins: 40 stores copied at the same spot with the same radius (some with the same rating,
  // fee and time too): distances tie exactly, so pages cut through ties broken by id.
  await em().execute(
    `insert into stores (owner_id, category_id, name, slug, address, latitude, longitude, delivery_radius_km, delivery_price_cents,
                         free_delivery, delivery_time, rating, rating_count, timezone, is_active)
     select owner_id, category_id, name || ' twin', slug || '-twin', address, latitude, longitude, delivery_radius_km,
            case when id % 2 = 0 then delivery_price_cents else delivery_price_cents + 100 end,
            free_delivery, delivery_time, rating, rating_count, timezone, true
     from stores where is_active order by id limit 40`,
  );
  await em().execute(
    `insert into store_opening_hours (store_id, day_of_week, opens_at, closes_at)
     select t.id, h.day_of_week, h.opens_at, h.closes_at from stores t join stores s on t.slug = s.slug || '-twin' join store_opening_hours h on h.store_id = s.id`,
  );
  await refreshAfterBulkLoad(em());
}, 180_000);

afterAll(async () => {
  await db?.close();
});

/** Today's query before the change, verbatim in spirit: every match counted and sorted, no index tricks. */
async function reference(filter: StoreFilter, sort: StoreSort, limit: number, offset: number) {
  const here = `ll_to_earth(${filter.point!.lat}, ${filter.point!.lng})`;
  const distance = `earth_distance(ll_to_earth(s.latitude, s.longitude), ${here})`;
  const conditions = ['s.is_active', `${distance} <= s.delivery_radius_km * 1000`];
  const params: unknown[] = [];
  if (filter.radiusKm !== undefined) conditions.push(`${distance} <= ${filter.radiusKm * 1000}`);
  if (filter.minRating !== undefined) {
    conditions.push('s.rating >= ?');
    params.push(filter.minRating);
  }
  if (filter.categoryId !== undefined) {
    conditions.push('s.category_id = ?');
    params.push(filter.categoryId);
  }
  if (filter.freeDelivery) conditions.push('s.free_delivery');
  if (filter.openAt !== undefined) {
    conditions.push('store_is_open(s.id, ?::jsonb)');
    params.push(await localTimesAt(em(), filter.openAt));
  }
  if (filter.hasOffer) conditions.push(`exists (select 1 from offers o where o.store_id = s.id and ${activeWindowSql('o')})`);
  const order: Record<StoreSort, string> = {
    distance: 'distance_m asc',
    rating: 's.rating desc, s.rating_count desc',
    delivery_fee: '(case when s.free_delivery then 0 else s.delivery_price_cents end) asc',
    delivery_time: 's.delivery_time asc',
    popularity: 's.order_count desc, s.rating desc',
  };
  const rows = await em().execute<{ id: number; distance_m: number }[]>(
    `select s.id, ${distance} as distance_m from stores s where ${conditions.join(' and ')}
     order by ${order[sort]}, distance_m asc, s.id asc limit ? offset ?`,
    [...params, limit, offset],
  );
  const [{ n }] = await em().execute<{ n: string }[]>(`select count(*) as n from stores s where ${conditions.join(' and ')}`, params);
  return { ids: rows.map((r) => r.id), km: rows.map((r) => Math.round(r.distance_m / 10) / 100), total: Number(n) };
}

async function filters(): Promise<[string, Omit<StoreFilter, 'point'>][]> {
  const [{ id: categoryId }] = await em().execute<{ id: number }[]>(
    `select category_id as id from stores where category_id is not null group by 1 order by count(*) desc limit 1 offset 2`,
  );
  const openAt = NOW;
  const night = new Date('2026-03-04T03:30:00Z');
  return [
    ['no filter', {}],
    ['radius 2', { radiusKm: 2 }],
    ['radius 7', { radiusKm: 7 }],
    ['min_rating 4.5', { minRating: 4.5 }],
    ['free_delivery', { freeDelivery: true }],
    ['is_open at noon', { openAt }],
    ['is_open at night', { openAt: night }],
    ['has_offer', { hasOffer: true }],
    ['category', { categoryId }],
    ['category + min_rating + free_delivery', { categoryId, minRating: 4, freeDelivery: true }],
    ['has_offer + is_open + radius 5', { hasOffer: true, openAt, radiusKm: 5 }],
  ];
}

function points() {
  const rnd = new Random(2026);
  const list = [{ name: 'centre', point: CASABLANCA }];
  for (let k = 0; k < 4; k++) {
    const point = { lat: CASABLANCA.lat + (rnd.next() - 0.5) * 0.4, lng: CASABLANCA.lng + (rnd.next() - 0.5) * 0.4 };
    list.push({ name: `random ${point.lat.toFixed(4)},${point.lng.toFixed(4)}`, point });
  }
  list.push({ name: 'at sea, no store', point: { lat: 34.2, lng: -8.6 } });
  return list;
}

describe('nearby at city scale answers like the full sort', () => {
  it('has a city to compare on', async () => {
    const [{ n }] = await em().execute<{ n: string }[]>('select count(*) as n from stores where is_active');
    expect(Number(n)).toBeGreaterThan(STORES * 0.9);
  });

  it('gives the same stores, order, distances and total for every sort, filter, point and page', async () => {
    const index = await reachIndex(em(), { wait: true });
    expect(index?.size).toBeGreaterThan(STORES * 0.9);
    // A second pool on the same database with the index turned off (REACH_INDEX=off): the service's findStores there is SQL's.
    const off = await openDatabase({ databaseUrl: db.orm.config.get('clientUrl'), migrate: false, poolMax: 2 });
    turnReachIndexOff(off.orm.em);
    const findWithIndexOff: typeof findStores = (_em, ...rest) => findStores(off.orm.em.fork(), ...rest);
    const compared: string[] = [];
    for (const { name: where, point } of points()) {
      for (const [name, rest] of await filters()) {
        const filter: StoreFilter = { point, ...rest };
        for (const sort of [...STORE_SORTS]) {
          const first = await reference(filter, sort, 15, 0);
          const lastPage = Math.max(1, Math.ceil(first.total / 15));
          const pages = [...new Set([1, 2, lastPage, lastPage + 1])];
          for (const page of pages) {
            for (const perPage of page === 1 ? [15, 50] : [15]) {
              const expected = await reference(filter, sort, perPage, (page - 1) * perPage);
              for (const [path, find] of [
                ['index', findStores],
                ['sql', findStoresBySql],
                ['index turned off', findWithIndexOff],
              ] as const) {
                const got = await find(em(), filter, sort, { limit: perPage, offset: (page - 1) * perPage });
                const label = `${path}: ${where} / ${name} / ${sort} / page ${page} of ${perPage}`;
                expect({ label, ids: got.stores.map((s) => s.id), km: got.stores.map((s) => s.distanceKm), total: got.total }).toEqual({
                  label,
                  ...expected,
                });
                compared.push(label);
              }
            }
          }
        }
      }
    }
    // Non-trivial: some answers were long lists, some were empty.
    expect(compared.length).toBeGreaterThan(1200);
    // The index answered (a rebuild would have sent every request to SQL); turned off, it was never built.
    expect(await reachIndex(em())).toBe(index);
    expect(await reachIndex(off.orm.em.fork(), { wait: true })).toBeNull();
    await off.close();
  }, 600_000);

  it('cuts pages through exact distance ties like the full sort (twins, id order)', async () => {
    await reachIndex(em(), { wait: true });
    const [twin] = await em().execute<{ latitude: number; longitude: number }[]>(
      `select latitude, longitude from stores where slug like '%-twin' order by id limit 1`,
    );
    const point = { lat: twin.latitude + 0.001, lng: twin.longitude };
    for (const sort of [...STORE_SORTS]) {
      for (let offset = 0; offset < 6; offset++) {
        for (const limit of [1, 2, 3]) {
          const expected = await reference({ point }, sort, limit, offset);
          const got = await findStores(em(), { point }, sort, { limit, offset });
          expect({ sort, offset, ids: got.stores.map((s) => s.id), total: got.total }).toEqual({
            sort,
            offset,
            ids: expected.ids,
            total: expected.total,
          });
        }
      }
    }
  });

  it('counts like PostgreSQL at 300 random points, every filter', async () => {
    const index = (await reachIndex(em(), { wait: true }))!;
    const rnd = new Random(7);
    const list = await filters();
    for (let k = 0; k < 300; k++) {
      const point = { lat: CASABLANCA.lat + (rnd.next() - 0.5) * 0.5, lng: CASABLANCA.lng + (rnd.next() - 0.5) * 0.5 };
      const [name, rest] = list[k % list.length];
      const filter: StoreFilter = { point, ...rest, radiusKm: k % 3 === 0 ? 1 + (k % 50) : rest.radiusKm };
      const localTimes = filter.openAt && (await localTimesAt(em(), filter.openAt));
      const { where, params } = storeConditions(filter, { localTimes });
      const [{ n }] = await em().execute<{ n: string }[]>(`select count(*) as n from stores s where ${where}`, params);
      const got = await findStores(em(), filter, 'rating', { limit: 1, offset: 0 });
      expect({ k, name, total: got.total }).toEqual({ k, name, total: Number(n) });
    }
    expect(await reachIndex(em())).toBe(index);
  }, 120_000);

  it("answers from the copy in hand in one statement, with each store's category and open now", async () => {
    await reachIndex(em(), { wait: true });
    const categories = new Map((await readViews(em(), StoreCategory, 'c', 'from store_categories c')).map((c) => [c.id, c] as const));
    let cards = 0;
    for (const at of [NOW, new Date('2026-03-04T22:30:00Z')]) {
      const localTimes = await localTimesAt(em(), at);
      for (const [name, rest] of await filters()) {
        for (const sort of [...STORE_SORTS]) {
          for (const offset of [0, 15]) {
            const counted = em();
            const execute = jest.spyOn(counted, 'execute');
            const prepared = jest.spyOn(counted as AppEntityManager, 'executePrepared');
            const got = await findStores(counted, { point: CASABLANCA, ...rest }, sort, { limit: 15, offset }, { cardsAt: at });
            const label = `${name} / ${sort} / ${offset}`;
            const expected = await reference({ point: CASABLANCA, ...rest }, sort, 15, offset);
            expect({ label, ids: got.stores.map((s) => s.id), km: got.stores.map((s) => s.distanceKm), total: got.total }).toEqual({
              label,
              ...expected,
            });
            expect({ label, statements: execute.mock.calls.length + prepared.mock.calls.length }).toEqual({ label, statements: 1 });
            const ids = got.stores.map((s) => s.id);
            const open = ids.length
              ? await em().execute<{ id: number; open: boolean }[]>(
                  'select id, store_is_open(id, ?::jsonb) as open from stores where id in (?)',
                  [localTimes, ids],
                )
              : [];
            const openOf = new Map(open.map((r) => [r.id, r.open]));
            for (const store of got.stores) {
              const card = got.cards!.get(store)!;
              expect({ label, id: store.id, open: card.open, category: card.category }).toEqual({
                label,
                id: store.id,
                open: openOf.get(store.id),
                category: store.category ? categories.get(store.category.id) : null,
              });
              cards++;
            }
          }
        }
      }
    }
    expect(cards).toBeGreaterThan(500);
  }, 120_000);

  it("throws the page away when a write commits between the copy's answer and the page's statement", async () => {
    const [{ id: other }] = await em().execute<{ id: number }[]>('select id from stores where is_active order by id desc limit 1');
    for (const [name, write] of [
      ['a store rated best', (ids: number[]) => `update stores set rating = 5, rating_count = 1000000 where id = ${ids[40]}`],
      ['the first store closed down', (ids: number[]) => `update stores set is_active = false where id = ${ids[0]}`],
      [
        'an offer added',
        (ids: number[]) =>
          `insert into offers (store_id, title, discount, token, starts_at) values (${ids[3]}, 'race', 10, 'race-${ids[3]}', now() - interval '1 hour')`,
      ],
      ['a store elsewhere', () => `update stores set delivery_time = delivery_time + 1 where id = ${other}`],
    ] as const) {
      const index = await reachIndex(em(), { wait: true });
      const filter: StoreFilter = { point: CASABLANCA, ...(name === 'an offer added' ? { hasOffer: true } : {}) };
      const before = await reference({ point: CASABLANCA }, 'rating', 50, 0);
      const racing = em() as AppEntityManager;
      const execute = racing.executePrepared.bind(racing);
      let written = false;
      jest.spyOn(racing, 'executePrepared').mockImplementation((async (...args: Parameters<typeof execute>) => {
        // The copy has answered; the write commits before the page's statement starts.
        if (!written) await em().execute(write(before.ids));
        written = true;
        return execute(...args);
      }) as typeof execute);
      const got = await findStores(racing, filter, 'rating', { limit: 15, offset: 0 });
      expect(written).toBe(true);
      const expected = await reference(filter, 'rating', 15, 0);
      expect({ name, ids: got.stores.map((s) => s.id), total: got.total }).toEqual({ name, ids: expected.ids, total: expected.total });
      expect(await reachIndex(em())).not.toBe(index);
    }
  }, 120_000);

  it('sees every kind of write on the next request', async () => {
    const nearby = async (filter: Omit<StoreFilter, 'point'> = {}) => {
      const got = await findStores(em(), { point: CASABLANCA, ...filter }, 'rating', { limit: 50, offset: 0 });
      const expected = await reference({ point: CASABLANCA, ...filter }, 'rating', 50, 0);
      expect({ ids: got.stores.map((s) => s.id), total: got.total }).toEqual({ ids: expected.ids, total: expected.total });
      return got;
    };
    const before = await reachIndex(em(), { wait: true });
    const first = (await nearby()).stores[0].id;
    const openAt = (await filters()).find(([name]) => name === 'is_open at noon')![1].openAt;
    const writes = [
      `update stores set rating = 0 where id = ${first}`,
      `update stores set is_active = false where id = ${first}`,
      `update stores set is_active = true, delivery_radius_km = 0.001 where id = ${first}`,
      `update stores set latitude = latitude + 0.3 where id in (select id from stores order by id limit 20)`,
      `delete from store_opening_hours where store_id in (select id from stores order by rating desc limit 10)`,
      `insert into offers (store_id, title, discount, token, starts_at, ends_at) select id, 'late', 10, 'late-' || id, now() - interval '1 day', now() + interval '1 day' from stores order by rating desc limit 5`,
      `delete from offers where id in (select id from offers where store_id is not null order by id limit 5)`,
    ];
    for (const sql of writes) {
      await em().execute(sql);
      await nearby();
      await nearby({ openAt });
      await nearby({ hasOffer: true });
    }
    expect(await reachIndex(em())).not.toBe(before);
    await refreshAfterBulkLoad(em()); // the plan test below reads the visibility map
  }, 120_000);

  it('walks the position index nearest first and counts from it without reading store rows', async () => {
    const plan = async (sql: string) =>
      (await em().execute<{ 'QUERY PLAN': string }[]>(`explain (analyze, costs off, timing off) ${sql}`))
        .map((r) => r['QUERY PLAN'])
        .join('\n');
    const here = `ll_to_earth(${CASABLANCA.lat}, ${CASABLANCA.lng})`;
    const knn = await plan(
      `select s.id from stores s where s.is_active and earth_distance(s.earth, ${here}) <= s.delivery_radius_km * 1000
       order by s.earth <-> ${here} fetch first 15 rows with ties`,
    );
    expect(knn).toMatch(/Index (Only )?Scan using stores_earth_index[\s\S]*Order By: \(earth <->/);
    expect(knn).not.toMatch(/Sort/);
    const count = await plan(
      `select count(*) from stores s where s.is_active and earth_box(${here}, 50000) @> s.earth and earth_distance(s.earth, ${here}) <= s.delivery_radius_km * 1000`,
    );
    expect(count).toMatch(/Index Only Scan using stores_earth_index/);
    expect(count).toMatch(/Heap Fetches: 0/);
  });

  it('reads edge rows as PostgreSQL does: 24:00, one-second and all-day periods, past midnight, infinite and empty offers, an unknown zone', async () => {
    // The most central stores get the edge cases (the loader's text parsing, store_is_open's rule at each boundary).
    const ids = (
      await em().execute<{ id: number }[]>(
        `select id from stores where is_active order by earth <-> ll_to_earth(${CASABLANCA.lat}, ${CASABLANCA.lng}) limit 8`,
      )
    ).map((r) => r.id);
    await em().execute(`delete from store_opening_hours where store_id in (?)`, [ids]);
    await em().execute(`delete from offers where store_id in (?)`, [ids]);
    // 2026-03-04 is a Wednesday (3), Africa/Casablanca at UTC+1.
    await em().execute(
      `insert into store_opening_hours (store_id, day_of_week, opens_at, closes_at) values
         (${ids[0]}, 3, '12:00', '24:00'), (${ids[1]}, 3, '13:00:01', '13:00:02'), (${ids[2]}, 3, '13:00', '13:00'),
         (${ids[3]}, 2, '23:59:59', '13:00:01'), (${ids[4]}, 3, '00:00', '00:00'), (${ids[5]}, 3, '13:00:01', '13:00')`,
    );
    await em().execute(`update stores set timezone = 'Mars/Olympus_Mons' where id = ${ids[6]}`);
    await em().execute(
      `insert into store_opening_hours (store_id, day_of_week, opens_at, closes_at) values (${ids[6]}, 3, '00:00', '23:00')`,
    );
    await em().execute(
      `insert into offers (store_id, title, discount, token, starts_at, ends_at) values
         (${ids[0]}, 'always', 5, 'edge-0', '-infinity', 'infinity'), (${ids[1]}, 'open start', 5, 'edge-1', null, '2026-03-04T12:00:00.0005Z'),
         (${ids[2]}, 'empty', 5, 'edge-2', '2026-03-04T12:00:00Z', '2026-03-04T12:00:00Z'), (${ids[3]}, 'until', 5, 'edge-3', '2026-03-04T12:00:01Z', 'infinity')`,
    );
    const index = (await reachIndex(em(), { wait: true }))!;
    // Instants at the edge stores' boundaries on Casablanca's wall clock (its offset that week, from ICU).
    const zone = 'Africa/Casablanca';
    const noonUtc = Date.parse('2026-03-04T12:00:00Z');
    const offset = Date.parse(`${JSON.parse(localTimesOf([zone], new Date(noonUtc)))[zone]}Z`) - noonUtc;
    const locals = [
      '03T23:59:59',
      '04T00:00:00',
      '04T11:59:59',
      '04T12:00:00',
      '04T13:00:00',
      '04T13:00:01',
      '04T13:00:02',
      '04T23:59:59',
      '05T00:00:00',
      '05T13:00:00',
      '05T13:00:01',
    ];
    const seen = ids.slice(0, 7).map(() => new Set<boolean>());
    for (const local of locals) {
      const at = new Date(Date.parse(`2026-03-${local}Z`) - offset);
      const filter: StoreFilter = { point: CASABLANCA, openAt: at, radiusKm: 3 };
      const expected = await reference(filter, 'rating', 50, 0);
      const got = await findStores(em(), filter, 'rating', { limit: 50, offset: 0 });
      expect({ local, ids: got.stores.map((s) => s.id), total: got.total }).toEqual({ local, ids: expected.ids, total: expected.total });
      // The copy itself answers (not the SQL fallback), at the clock map fromReachIndex gives it, store by store too.
      const json = localTimesOf(index.zones, at);
      const openAt = new Map(Object.entries(JSON.parse(json) as Record<string, string>).map(([z, wall]) => [z, weekSeconds(wall)!]));
      expect({ local, total: index.count({ ...CASABLANCA, radiusKm: 3, openAt }) }).toEqual({ local, total: expected.total });
      const rows = await em().execute<{ id: number; open: boolean }[]>(
        `select id, store_is_open(id, ?::jsonb) as open from stores where id in (?) order by id`,
        [json, ids],
      );
      const sql = new Map(rows.map((r) => [r.id, r.open]));
      const copy = index.openNow(ids, openAt);
      expect({ local, open: copy }).toEqual({ local, open: ids.map((id) => sql.get(id)) });
      copy.slice(0, 7).forEach((open, k) => seen[k].add(open!));
    }
    // Each edge store opens and closes across the instants; the one of a zone ICU does not know reads as closed throughout.
    expect(seen.map((states) => states.size)).toEqual([2, 2, 2, 2, 2, 2, 1]);
    const live = await findStores(em(), { point: CASABLANCA, hasOffer: true, radiusKm: 3 }, 'rating', { limit: 50, offset: 0 });
    const expected = await reference({ point: CASABLANCA, hasOffer: true, radiusKm: 3 }, 'rating', 50, 0);
    expect({ ids: live.stores.map((s) => s.id), total: live.total }).toEqual({ ids: expected.ids, total: expected.total });
    expect(index.count({ ...CASABLANCA, radiusKm: 3, offerAt: Date.now() })).toBe(expected.total);
    expect(expected.ids).toContain(ids[0]);
    expect(await reachIndex(em())).toBe(index);
  }, 120_000);
});
