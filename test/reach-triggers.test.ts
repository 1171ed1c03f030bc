/**
 * The change log's update triggers (docs/decisions.md "City scale: the reach index under store
 * edits", Migration20261125174500_reach_update_statements): an update is logged by statement,
 * one row per store whose read columns really changed (an offer moved: both stores), one row
 * without a store past 1 000 stores (the loader then rebuilds); an update that changes nothing
 * the index reads logs nothing and leaves the version where it was.
 */
import 'reflect-metadata';
import { EntityManager } from '@mikro-orm/postgresql';
import { Database } from '../src/db/orm';
import { refreshAfterBulkLoad, seedDemoCity } from '../src/db/seed/demo-city';
import { REACH_ROWS_SQL, REACH_VERSION_SQL, reachIndex, reachLoads } from '../src/modules/stores/reach/reach-loader';
import { PatchedReachIndex } from '../src/modules/stores/reach/reach-patch';
import { openTestDatabase } from './helpers/database';

const NOW = new Date('2026-03-04T12:00:00Z');
let db: Database;
const em = (): EntityManager => db.orm.em.fork();

beforeAll(async () => {
  db = await openTestDatabase();
  // More than 1 000 active stores, so that a bulk update can pass the cap; at most 2 000, so the loader waits for its rebuilds.
  await seedDemoCity(em(), { stores: 1200, seed: 9, now: NOW });
  await refreshAfterBulkLoad(em());
}, 180_000);

afterAll(async () => {
  await db?.close();
});

const version = async () => (await em().execute<{ v: string }[]>(`select ${REACH_VERSION_SQL} as v`))[0].v;

const ids = async (sql: string) => (await em().execute<{ id: number }[]>(sql)).map((r) => r.id);

/** What `write` logged (the stores of its rows, in order, null first) and whether it moved the version. */
async function logOf(write: string): Promise<{ stores: (number | null)[]; moved: boolean }> {
  const [{ last }] = await em().execute<{ last: string }[]>(`select coalesce(max(id), 0)::text as last from store_reach_changes`);
  const before = await version();
  await em().execute(write);
  const rows = await em().execute<{ store_id: number | null }[]>(
    `select store_id from store_reach_changes where id > ${last} order by store_id nulls first`,
  );
  return { stores: rows.map((r) => r.store_id), moved: (await version()) !== before };
}

const sorted = (list: number[]) => [...list].sort((a, b) => a - b);

describe('an update of what the index reads logs each store it changed, once', () => {
  it('logs exactly the 5 stores whose radius changed, and moves the version', async () => {
    const five = await ids(`select id from stores where is_active order by id limit 5 offset 20`);
    const log = await logOf(`update stores set delivery_radius_km = delivery_radius_km + 1 where id in (${five.join(', ')})`);
    expect(log).toEqual({ stores: sorted(five), moved: true });
  });

  it('logs a store once for all of its opening hours changed in one statement', async () => {
    const five = await ids(
      `select store_id as id from store_opening_hours group by store_id having count(*) > 1 order by store_id limit 5`,
    );
    expect(five).toHaveLength(5);
    const log = await logOf(
      `update store_opening_hours set closes_at = closes_at - interval '1 minute' where store_id in (${five.join(', ')})`,
    );
    expect(log).toEqual({ stores: sorted(five), moved: true });
  });
});

describe('an update that changes nothing the index reads logs nothing and keeps the version', () => {
  it('a read column set to its own value', async () => {
    const five = await ids(`select id from stores where is_active order by id limit 5 offset 40`);
    expect(
      await logOf(`update stores set delivery_radius_km = delivery_radius_km, rating = rating where id in (${five.join(', ')})`),
    ).toEqual({ stores: [], moved: false });
    expect(await logOf(`update store_opening_hours set opens_at = opens_at where store_id in (${five.join(', ')})`)).toEqual({
      stores: [],
      moved: false,
    });
    expect(await logOf(`update offers set store_id = store_id, ends_at = ends_at where id in (select id from offers limit 20)`)).toEqual({
      stores: [],
      moved: false,
    });
  });

  it("a column the index does not read: a store's name or order count, an offer's title, an offer without a store", async () => {
    const five = await ids(`select id from stores where is_active order by id limit 5 offset 60`);
    expect(
      await logOf(`update stores set name = name || ' (new)', order_count = order_count + 1 where id in (${five.join(', ')})`),
    ).toEqual({
      stores: [],
      moved: false,
    });
    expect(await logOf(`update offers set title = title || ' (new)' where id in (select id from offers limit 20)`)).toEqual({
      stores: [],
      moved: false,
    });
    // The platform-wide offers have no store: the index holds none of them, whatever their dates.
    const [{ n }] = await em().execute<{ n: number }[]>(`select count(*)::int as n from offers where store_id is null`);
    expect(n).toBeGreaterThan(0);
    expect(await logOf(`update offers set ends_at = coalesce(ends_at, now()) + interval '1 day' where store_id is null`)).toEqual({
      stores: [],
      moved: false,
    });
  });
});

describe('an offer moved between stores logs both stores', () => {
  it('logs the store it left and the store it joined, once each for two offers', async () => {
    const [from, to] = await ids(`select id from stores where is_active order by id limit 2 offset 80`);
    for (const n of [1, 2])
      await em().execute(
        `insert into offers (store_id, title, discount, token, starts_at) values (${from}, 'moving ${n}', 10, 'moving-${n}', now())`,
      );
    expect(await logOf(`update offers set store_id = ${to} where token like 'moving-%'`)).toEqual({
      stores: sorted([from, to]),
      moved: true,
    });
    // Taken off every store: the store it left only.
    expect(await logOf(`update offers set store_id = null where token = 'moving-1'`)).toEqual({ stores: [to], moved: true });
  });
});

describe('a bulk update past 1 000 stores logs one row without a store, and the loader rebuilds', () => {
  it('1 001 stores: one row without a store; the next request rebuilds the index', async () => {
    await reachIndex(em(), { wait: true });
    const builds = reachLoads.builds;
    const stores = await ids(`select id from stores where is_active order by id limit 1001`);
    expect(stores).toHaveLength(1001);
    const log = await logOf(`update stores set delivery_radius_km = delivery_radius_km + 0.5 where id in (${stores.join(', ')})`);
    expect(log).toEqual({ stores: [null], moved: true });
    const index = await reachIndex(em());
    expect(index && !(index instanceof PatchedReachIndex)).toBe(true);
    expect(index!.version).toBe(await version());
    expect(reachLoads.builds).toBe(builds + 1);
  }, 60_000);

  it('1 000 stores, or more than 1 000 rows of fewer stores: one row per store; the loader catches up', async () => {
    await reachIndex(em(), { wait: true });
    const builds = reachLoads.builds;
    const stores = await ids(`select id from stores where is_active order by id limit 1000`);
    expect((await logOf(`update stores set rating_count = rating_count + 1 where id in (${stores.join(', ')})`)).stores).toEqual(stores);
    const hours = await ids(`select distinct store_id as id from store_opening_hours order by store_id limit 300`);
    const [{ rows }] = await em().execute<{ rows: number }[]>(
      `select count(*)::int as rows from store_opening_hours where store_id in (${hours.join(', ')})`,
    );
    expect(rows).toBeGreaterThan(1000);
    expect(
      (await logOf(`update store_opening_hours set opens_at = opens_at + interval '1 minute' where store_id in (${hours.join(', ')})`))
        .stores,
    ).toEqual(hours);
    const index = await reachIndex(em());
    expect(index instanceof PatchedReachIndex).toBe(true);
    expect(index!.version).toBe(await version());
    expect(reachLoads.builds).toBe(builds);
  }, 60_000);
});

/**
 * An edit of each column the index reads, as SQL: the test below runs each and expects the
 * store logged. Its keys must be the columns PostgreSQL says REACH_ROWS_SQL reads, so a column
 * read later and not watched by the triggers fails here until its edit shows it logged.
 */
const EDITS: Record<string, Record<string, string>> = {
  stores: {
    latitude: 'latitude + 0.001',
    longitude: 'longitude + 0.001',
    delivery_radius_km: 'delivery_radius_km + 1',
    rating: 'case when rating >= 1 then rating - 0.5 else rating + 0.5 end',
    rating_count: 'rating_count + 1',
    free_delivery: 'not free_delivery',
    delivery_price_cents: 'delivery_price_cents + 1',
    delivery_time: 'delivery_time + 1',
    category_id: '(select c.id from store_categories c where c.id is distinct from t.category_id order by c.id limit 1)',
    timezone: "case when timezone = 'UTC' then 'Europe/Paris' else 'UTC' end",
    is_active: 'not is_active',
  },
  store_opening_hours: {
    store_id: '(select s.id from stores s where s.id <> t.store_id and s.is_active order by s.id limit 1)',
    day_of_week: '(day_of_week + 3) % 7',
    opens_at: "opens_at - interval '1 minute'",
    closes_at: "closes_at - interval '1 minute'",
  },
  offers: {
    store_id: '(select s.id from stores s where s.id <> t.store_id and s.is_active order by s.id limit 1)',
    starts_at: "coalesce(starts_at, now()) - interval '1 day'",
    ends_at: "coalesce(ends_at, now()) + interval '1 day'",
  },
};

describe('the triggers watch every column the index reads', () => {
  it('PostgreSQL names the columns REACH_ROWS_SQL reads; an edit of each logs its store', async () => {
    // A generated column (stores.earth) stands for the columns it is computed from; the primary key is never edited.
    const read = await em().transactional(async (tx) => {
      await tx.execute(`create temporary view reach_rows_read as ${REACH_ROWS_SQL}`);
      return tx.execute<{ table_name: string; column_name: string }[]>(
        `select distinct u.table_name, coalesce(dep.attname, u.column_name) as column_name
         from information_schema.view_column_usage u
         join pg_attribute a on a.attrelid = u.table_name::regclass and a.attname = u.column_name
         left join pg_attrdef ad on a.attgenerated <> '' and ad.adrelid = a.attrelid and ad.adnum = a.attnum
         left join pg_depend d on d.objid = ad.oid and d.refobjid = a.attrelid and d.refobjsubid <> a.attnum
         left join pg_attribute dep on dep.attrelid = d.refobjid and dep.attnum = d.refobjsubid
         where u.view_name = 'reach_rows_read' and coalesce(dep.attname, u.column_name) <> 'id'`,
      );
    });
    const columns: Record<string, string[]> = {};
    for (const { table_name, column_name } of read) (columns[table_name] ??= []).push(column_name);
    for (const list of Object.values(columns)) list.sort();
    const edited = Object.fromEntries(Object.entries(EDITS).map(([table, edits]) => [table, Object.keys(edits).sort()]));
    expect(columns).toEqual(edited);

    for (const [table, edits] of Object.entries(EDITS)) {
      const storeOf = table === 'stores' ? 'id' : 'store_id';
      for (const [column, edit] of Object.entries(edits)) {
        const [row] = await em().execute<{ id: number; store: number }[]>(
          `select t.id, t.${storeOf} as store from ${table} t join stores s on s.id = t.${storeOf} where s.is_active order by t.id limit 1 offset 3`,
        );
        const log = await logOf(`update ${table} t set ${column} = ${edit} where t.id = ${row.id}`);
        expect({ column, moved: log.moved, logged: log.stores.includes(row.store) }).toEqual({ column, moved: true, logged: true });
      }
    }
  });
});
