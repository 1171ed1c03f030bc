/**
 * The reach index under store edits (docs/decisions.md "City scale: the reach index under store
 * edits"): the triggers move the version only on what the index reads, and a copy behind the
 * database catches up from the change log (the changed stores re-read and patched over it, no
 * rebuild) and then answers exactly what SQL answers, whatever the edit: a move, a radius, a
 * store closed, reopened, added, deleted, hours, offers; also when two transactions commit in
 * the opposite order of their ids. When the log cannot tell (truncated, pruned past the copy)
 * the copy is rebuilt.
 */
import 'reflect-metadata';
import { EntityManager } from '@mikro-orm/postgresql';
import { Knex } from '@mikro-orm/knex';
import { Database } from '../src/db/orm';
import { CASABLANCA, refreshAfterBulkLoad, seedDemoCity } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';
import { findStores, findStoresBySql, StoreFilter, StoreSort } from '../src/modules/stores/store-query';
import { reachIndex, reachLoads } from '../src/modules/stores/reach-index.loader';
import { PatchedReachIndex } from '../src/modules/stores/reach-patch';
import { ReachAnswers } from '../src/modules/stores/reach-index';
import { openTestDatabase } from './helpers/database';

const NOW = new Date('2026-03-04T12:00:00Z');
let db: Database;
const em = (): EntityManager => db.orm.em.fork();

beforeAll(async () => {
  db = await openTestDatabase();
  await seedDemoCity(em(), { stores: 800, seed: 5, now: NOW });
  await refreshAfterBulkLoad(em());
}, 180_000);

afterAll(async () => {
  await db?.close();
});

const version = async () =>
  (await em().execute<{ v: string }[]>(`select coalesce((select version::text from store_reach_version where id = 1), '0') as v`))[0].v;

/** The copy in hand after `write`: caught up without a rebuild (asserted), current. */
async function caughtUp(write: string | (() => Promise<unknown>)): Promise<ReachAnswers> {
  await reachIndex(em(), { wait: true });
  const builds = reachLoads.builds;
  const catchUps = reachLoads.catchUps;
  if (typeof write === 'string') await em().execute(write);
  else await write();
  const index = await reachIndex(em());
  expect(index).not.toBeNull();
  expect(index!.version).toBe(await version());
  expect({ builds: reachLoads.builds, caughtUp: reachLoads.catchUps > catchUps }).toEqual({ builds, caughtUp: true });
  return index!;
}

/** Nearby from the patched copy against SQL alone: pages of every sort, filters, points near the edited stores. */
async function sameAsSql(index: ReachAnswers, near: number[]): Promise<number> {
  const rnd = new Random(near[0] ?? 1);
  const spots = await em().execute<{ lat: number; lng: number }[]>(
    `select latitude as lat, longitude as lng from stores where id in (${near.join(', ') || 'null'})`,
  );
  const points = [CASABLANCA, ...spots.map((s) => ({ lat: s.lat + 0.01, lng: s.lng - 0.01 }))];
  let fromCopy = 0;
  for (const point of points) {
    for (const [sort, filter, offset] of [
      ['distance', {}, 0],
      ['rating', {}, 0],
      ['rating', { radiusKm: 5 }, 10],
      ['delivery_fee', { freeDelivery: false, minRating: 3 }, 0],
      ['delivery_time', { openAt: NOW }, 5],
      ['rating', { hasOffer: true }, 0],
      ['distance', { minRating: 4 }, rnd.int(0, 40)],
    ] as [StoreSort, Omit<StoreFilter, 'point'>, number][]) {
      const page = { limit: 15, offset };
      const got = await findStores(em(), { point, ...filter }, sort, page);
      const sql = await findStoresBySql(em(), { point, ...filter }, sort, page);
      expect({ sort, filter, ids: got.stores.map((s) => s.id), total: got.total }).toEqual({
        sort,
        filter,
        ids: sql.stores.map((s) => s.id),
        total: sql.total,
      });
      if (index.count({ ...point, radiusKm: filter.radiusKm, minRating: filter.minRating }) !== null) fromCopy++;
    }
  }
  return fromCopy;
}

describe('the reach index under store edits', () => {
  it("moves the version on what the index reads only: not on an offer's title", async () => {
    const [{ id }] = await em().execute<{ id: number }[]>(`select id from offers where store_id is not null order by id limit 1`);
    const before = await version();
    const logged = async () => Number((await em().execute<{ n: string }[]>(`select count(*) as n from store_reach_changes`))[0].n);
    const rows = await logged();
    await em().execute(`update offers set title = title || ' (new)' where id = ${id}`);
    expect(await version()).toBe(before);
    expect(await logged()).toBe(rows);
    // A read column set to its own value: neither (test/reach-triggers.test.ts).
    await em().execute(`update store_opening_hours set opens_at = opens_at where id = (select min(id) from store_opening_hours)`);
    expect(await version()).toBe(before);
    expect(await logged()).toBe(rows);
    await em().execute(`update offers set ends_at = coalesce(ends_at, now()) + interval '1 day' where id = ${id}`);
    expect(await version()).not.toBe(before);
    expect(await logged()).toBe(rows + 1);
  });

  it('catches up without a rebuild after a move, a radius, a close, a reopen, hours, offers, an insert and a delete, and answers like SQL', async () => {
    const central = (
      await em().execute<{ id: number }[]>(
        `select id from stores where is_active order by earth <-> ll_to_earth(${CASABLANCA.lat}, ${CASABLANCA.lng}) limit 6`,
      )
    ).map((r) => r.id);
    const [a, b, c, d, e, f] = central;
    const edits: [string, string | (() => Promise<unknown>), number[]][] = [
      ['a store moves', `update stores set latitude = latitude + 0.02, longitude = longitude - 0.03 where id = ${a}`, [a]],
      ['a radius grows', `update stores set delivery_radius_km = 40 where id = ${b}`, [b]],
      ['a radius shrinks', `update stores set delivery_radius_km = 0.2 where id = ${c}`, [c]],
      ['a store closes down', `update stores set is_active = false where id = ${d}`, [d]],
      ['it reopens, rated best', `update stores set is_active = true, rating = 5, rating_count = 99999 where id = ${d}`, [d]],
      ['hours removed', `delete from store_opening_hours where store_id = ${e}`, [e]],
      [
        'hours added',
        `insert into store_opening_hours (store_id, day_of_week, opens_at, closes_at) values (${e}, 3, '00:00', '23:59')`,
        [e],
      ],
      [
        'an offer added',
        `insert into offers (store_id, title, discount, token, starts_at) values (${f}, 'new', 10, 'catch-up-${f}', now() - interval '1 hour')`,
        [f],
      ],
      ['an offer moved to another store', `update offers set store_id = ${a} where token = 'catch-up-${f}'`, [a, f]],
      [
        'a rating and a fee, in bulk',
        `update stores set rating = 4.9, free_delivery = not free_delivery where id in (select id from stores order by id limit 30)`,
        [],
      ],
      [
        'a store added, free and fast',
        `insert into stores (owner_id, category_id, name, slug, address, latitude, longitude, delivery_radius_km, delivery_price_cents,
                             free_delivery, delivery_time, rating, rating_count, timezone, is_active)
         select owner_id, category_id, 'Newcomer', 'newcomer', address, ${CASABLANCA.lat}, ${CASABLANCA.lng}, 30, 0, true, 1, 5, 100000, timezone, true
         from stores where id = ${a}`,
        [],
      ],
      ['the store added is deleted', `delete from stores where slug = 'newcomer'`, []],
    ];
    let fromCopy = 0;
    for (const [name, write, near] of edits) {
      const index = await caughtUp(write);
      expect({ name, patched: index instanceof PatchedReachIndex }).toEqual({ name, patched: true });
      fromCopy += await sameAsSql(index, near);
    }
    expect(fromCopy).toBeGreaterThan(edits.length * 5);
    // The newcomer was on the index's pages while it lived.
    const ids = await em().execute<{ n: string }[]>(`select count(*) as n from stores where slug = 'newcomer'`);
    expect(Number(ids[0].n)).toBe(0);
  }, 180_000);

  it('applies two overlapping transactions that commit in the opposite order of their ids', async () => {
    const [x, y] = (
      await em().execute<{ id: number }[]>(
        `select id from stores where is_active order by earth <-> ll_to_earth(${CASABLANCA.lat}, ${CASABLANCA.lng}) limit 2 offset 10`,
      )
    ).map((r) => r.id);
    await reachIndex(em(), { wait: true });
    const builds = reachLoads.builds;
    const knex = em().getKnex();
    const first: Knex.Transaction = await knex.transaction();
    const second: Knex.Transaction = await knex.transaction();
    try {
      const xid = async (t: Knex.Transaction) =>
        BigInt((await t.raw<{ rows: { id: string }[] }>(`select pg_current_xact_id()::text as id`)).rows[0].id);
      const older = await xid(first);
      const newer = await xid(second);
      expect(newer > older).toBe(true);
      // The newer transaction commits first; the copy catches up while the older one is open.
      await second.raw(`update stores set delivery_radius_km = 45, rating = 5, rating_count = 777777 where id = ${y}`);
      await second.commit();
      const between = (await reachIndex(em()))!;
      expect(between.version).toBe(newer.toString());
      // Then the older one: the version goes back to a smaller id, its store is still caught up.
      await first.raw(
        `update stores set latitude = latitude + 0.05, delivery_radius_km = 45, rating = 5, rating_count = 888888 where id = ${x}`,
      );
      await first.commit();
    } finally {
      if (!first.isCompleted()) await first.rollback();
      if (!second.isCompleted()) await second.rollback();
    }
    const after = (await reachIndex(em()))!;
    expect(after.version).toBe(await version());
    expect(reachLoads.builds).toBe(builds);
    const got = await findStores(em(), { point: CASABLANCA }, 'rating', { limit: 5, offset: 0 });
    expect(got.stores.map((s) => s.id).slice(0, 2)).toEqual([x, y]);
    await sameAsSql(after, [x, y]);
  }, 120_000);

  it('rebuilds when the log cannot tell: truncated, or pruned past the copy', async () => {
    await reachIndex(em(), { wait: true });
    let builds = reachLoads.builds;
    await em().execute(`truncate store_reach_changes`);
    await em().execute(`update stores set rating = 1 where id = (select min(id) from stores where is_active)`);
    let index = await reachIndex(em());
    expect(index && !(index instanceof PatchedReachIndex)).toBe(true);
    expect(reachLoads.builds).toBe(builds + 1);
    // A horizon past the copy's snapshot: rows it needs may be gone. (Below its xmax, and not one
    // of the transactions it saw in progress, the horizon leaves it complete: the next edit.)
    builds = reachLoads.builds;
    await em().execute(`update store_reach_version set log_pruned_below = pg_current_xact_id()::text::bigint + 1 where id = 1`);
    await em().execute(`update stores set rating = 2 where id = (select min(id) from stores where is_active)`);
    index = await reachIndex(em());
    expect(index && !(index instanceof PatchedReachIndex)).toBe(true);
    expect(reachLoads.builds).toBe(builds + 1);
    await sameAsSql(index!, []);
    // A copy built after the horizon catches up again.
    await caughtUp(`update stores set rating = 3 where id = (select min(id) from stores where is_active)`);
  }, 120_000);
});
