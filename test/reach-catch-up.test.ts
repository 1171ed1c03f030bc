/**
 * The reach index under store edits (docs/decisions.md "City scale: the reach index under store
 * edits"): the triggers move the version only on what the index reads, and a copy behind the
 * database catches up from the change log (the changed stores re-read and patched over it, no
 * rebuild) and then answers exactly what SQL answers, whatever the edit: a move, a radius, a
 * store closed, reopened, added, deleted, hours, offers; also when two transactions commit in
 * the opposite order of their ids. When the log cannot tell (truncated, pruned past the copy)
 * the copy is rebuilt; when the catch-up fails (an error) it is not, and a later request tries
 * again. The log is pruned in batches, and not written when nothing is old enough; a copy
 * whose version has not moved takes the snapshot of a page that read it.
 */
import 'reflect-metadata';
import { EntityManager } from '@mikro-orm/postgresql';
import { Knex } from '@mikro-orm/knex';
import { Database } from '../src/db/orm';
import { CASABLANCA, refreshAfterBulkLoad, seedDemoCity } from '../src/db/seed/demo-city';
import { Random } from '../src/db/seed/random';
import { findStoresBySql, StoreFilter, StoreSort } from '../src/modules/stores/store-query';
import { findStores } from '../src/modules/stores/find-stores';
import { laterSnapshot, REACH_VERSION_SQL, reachIndex, reachLoads } from '../src/modules/stores/reach/reach-loader';
import { PatchedReachIndex } from '../src/modules/stores/reach/reach-patch';
import { ReachAnswers } from '../src/modules/stores/reach/reach-index';
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

const version = async () => (await em().execute<{ v: string }[]>(`select ${REACH_VERSION_SQL} as v`))[0].v;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `body` with Date.now `ms` ahead (the loader's once-a-minute prune and snapshot refresh come due). */
async function later<T>(ms: number, body: () => Promise<T>): Promise<T> {
  const now = Date.now.bind(Date);
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => now() + ms);
  try {
    return await body();
  } finally {
    spy.mockRestore();
  }
}

/** Waits until the loader's background prune that `start` sets off has ended. */
async function pruned(start: () => Promise<unknown>): Promise<void> {
  const prunes = reachLoads.prunes;
  await start();
  for (let i = 0; i < 200 && reachLoads.prunes === prunes; i++) await sleep(25);
  expect(reachLoads.prunes).toBe(prunes + 1);
}

let pruneClock = 0;

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
  it('answers by SQL when a catch-up fails with an error, without a rebuild, and catches up on a later request', async () => {
    // The horizon the test above left is near this server's current ids: a transaction of another
    // session in progress at the copy's snapshot, below it and committed since, would rebuild.
    await em().execute(`update store_reach_version set log_pruned_below = 0 where id = 1`);
    await reachIndex(em(), { wait: true });
    const { builds, catchUps, failedCatchUps } = { ...reachLoads };
    await em().execute(`update stores set rating = 4.1 where id = (select min(id) from stores where is_active)`);
    // The catch-up's statements fail (as a timeout or a lost connection would): the log is away.
    await em().execute(`alter table store_reach_changes rename to store_reach_changes_away`);
    try {
      expect(await reachIndex(em())).toBeNull();
    } finally {
      await em().execute(`alter table store_reach_changes_away rename to store_reach_changes`);
    }
    expect({ ...reachLoads }).toMatchObject({ builds, catchUps, failedCatchUps: failedCatchUps + 1 });
    // Within the back-off the next request takes the SQL path without trying.
    expect(await reachIndex(em())).toBeNull();
    expect({ ...reachLoads }).toMatchObject({ builds, catchUps, failedCatchUps: failedCatchUps + 1 });
    // Past the back-off (Date.now moved, no wait).
    const index = await later(1100, () => reachIndex(em()));
    expect(index?.version).toBe(await version());
    expect({ ...reachLoads }).toMatchObject({ builds, catchUps: catchUps + 1, failedCatchUps: failedCatchUps + 1 });
    await sameAsSql(index!, []);
  }, 120_000);

  it('prunes old log rows in batches of whole transactions, and writes nothing when none is old enough', async () => {
    await reachIndex(em(), { wait: true });
    // 12 000 rows an hour old, thirty per transaction, at ids 3–402: past for any cluster (initdb
    // alone uses more) and none of this test's own transactions, which log real rows. (Ids in the
    // thousands were both on a new machine's cluster, and the prune took the real rows with them.)
    await em().execute(
      `insert into store_reach_changes (xid, store_id, at) select 3 + g / 30, 1, now() - interval '1 hour' from generate_series(0, 11999) g`,
    );
    const deletes: string[] = [];
    const knex = db.orm.em.getConnection().getKnex();
    const onQuery = (q: { sql: string }) => {
      if (/delete from store_reach_changes/.test(q.sql)) deletes.push(q.sql);
    };
    knex.on('query', onQuery);
    try {
      const rows = reachLoads.pruned;
      pruneClock += 61_000;
      await pruned(() =>
        later(pruneClock, () => caughtUp(`update stores set rating = 4.2 where id = (select min(id) from stores where is_active)`)),
      );
      expect(reachLoads.pruned - rows).toBe(12_000);
      expect(deletes.length).toBeGreaterThanOrEqual(3);
      const [left] = await em().execute<{ n: string; below: string }[]>(
        `select (select count(*) from store_reach_changes where xid < 403) as n, (select log_pruned_below from store_reach_version where id = 1) as below`,
      );
      expect({ n: Number(left.n), below: BigInt(left.below) >= 403n }).toEqual({ n: 0, below: true });
      // A minute later nothing is old enough: no write.
      deletes.length = 0;
      await em().execute(`update stores set rating = 4.3 where id = (select min(id) from stores where is_active)`);
      pruneClock += 61_000;
      await pruned(() => later(pruneClock, () => reachIndex(em())));
      expect(deletes.length).toBe(0);
    } finally {
      knex.off('query', onQuery);
    }
  }, 120_000);

  it('refreshes an unchanged copy’s snapshot from a page, so a later horizon past a transaction then in progress does not rebuild', async () => {
    await caughtUp(`update stores set rating = 4.4 where id = (select min(id) from stores where is_active)`);
    const builds = reachLoads.builds;
    // A transaction of something else, in progress when the copy catches up next (in its snapshot's xip).
    const other: Knex.Transaction = await em().getKnex().transaction();
    let xid: bigint;
    try {
      xid = BigInt((await other.raw<{ rows: { id: string }[] }>(`select pg_current_xact_id()::text as id`)).rows[0].id);
      await caughtUp(`update stores set rating = 4.5 where id = (select min(id) from stores where is_active)`);
      await other.commit();
    } finally {
      if (!other.isCompleted()) await other.rollback();
    }
    // Quiet for a minute and more: a page read at the copy's version hands its snapshot to the copy.
    pruneClock += 61_000;
    await later(pruneClock, () => findStores(em(), { point: CASABLANCA }, 'rating', { limit: 5, offset: 0 }));
    // Another process prunes past that transaction (it logged nothing): the copy is complete all the same.
    await em().execute(`update store_reach_version set log_pruned_below = greatest(log_pruned_below, ${xid + 1n}) where id = 1`);
    await caughtUp(`update stores set rating = 4.6 where id = (select min(id) from stores where is_active)`);
    expect(reachLoads.builds).toBe(builds);
  }, 120_000);

  it("forgets a log restored from another cluster (ids above this one's), so edits catch up again", async () => {
    await em().execute(`update store_reach_version set log_pruned_below = 0 where id = 1`);
    // No prune in flight when the restore's rows arrive (a build's would count as the one awaited below).
    pruneClock += 61_000;
    await pruned(() =>
      later(pruneClock, () => caughtUp(`update stores set rating = 4.65 where id = (select min(id) from stores where is_active)`)),
    );
    // What a restore leaves: the old cluster's rows (recent: no age prune takes them) and its horizon, ids far above this cluster's.
    const ahead = `pg_current_xact_id()::text::bigint + 1000000000`;
    await em().execute(`insert into store_reach_changes (xid, store_id) select ${ahead} + g, 1 from generate_series(0, 9) g`);
    await em().execute(`update store_reach_version set log_pruned_below = ${ahead} + 10 where id = 1`);
    const { builds, otherClusters } = { ...reachLoads };
    pruneClock += 61_000;
    // The first edit finds the log pruned past its copy and rebuilds; the prune after it forgets the other cluster.
    await pruned(() =>
      later(pruneClock, () =>
        em()
          .execute(`update stores set rating = 4.7 where id = (select min(id) from stores where is_active)`)
          .then(() => reachIndex(em())),
      ),
    );
    const [left] = await em().execute<{ rows: string; horizon_here: boolean }[]>(
      `select (select count(*) from store_reach_changes where xid >= ${ahead} - 1000000) as rows,
              (select log_pruned_below <= pg_snapshot_xmax(pg_current_snapshot())::text::bigint from store_reach_version where id = 1) as horizon_here`,
    );
    expect({ rows: Number(left.rows), horizon_here: left.horizon_here }).toEqual({ rows: 0, horizon_here: true });
    // At most one more rebuild (a copy older than the new horizon), then edits catch up.
    await em().execute(`update stores set rating = 4.8 where id = (select min(id) from stores where is_active)`);
    await reachIndex(em());
    expect(reachLoads.builds - builds).toBeLessThanOrEqual(2);
    expect(reachLoads.otherClusters).toBe(otherClusters + 1);
    const index = await caughtUp(`update stores set rating = 4.9 where id = (select min(id) from stores where is_active)`);
    await sameAsSql(index, []);
  }, 120_000);

  it('orders snapshots: a copy is replaced only by one read at a later snapshot', async () => {
    const snapshot = async (k: { raw: Knex['raw'] } = em().getKnex()) =>
      (await k.raw<{ rows: { s: string }[] }>(`select pg_current_snapshot()::text as s`)).rows[0].s;
    const other: Knex.Transaction = await em().getKnex().transaction();
    try {
      await other.raw(`select pg_current_xact_id()`);
      const during = await snapshot();
      await other.commit();
      const after = await snapshot();
      expect([laterSnapshot(after, during), laterSnapshot(during, after), laterSnapshot(after, after)]).toEqual([true, false, false]);
    } finally {
      if (!other.isCompleted()) await other.rollback();
    }
    // The same xmax: the later snapshot has fewer transactions in progress.
    expect([laterSnapshot('100:105:102', '100:105:100,102'), laterSnapshot('100:105:100,102', '100:105:102')]).toEqual([true, false]);
    expect(laterSnapshot('100:106:', '100:105:')).toBe(true);
  });
});
