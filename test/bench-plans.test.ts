/**
 * The benchmark's plan capture (scripts/bench-plans.ts): recorded statements are explained
 * with their parameters, what they would write is rolled back, and the transaction around
 * them is not explained. The capture from a running service is exercised by
 * `npm run bench -- --smoke` in CI.
 */
import { explainStatements, formatPlans, preview } from '../scripts/bench-plans';
import { Database } from '../src/db/orm';
import { seedDemoCity } from '../src/db/seed/demo-city';
import { openTestDatabase } from './helpers/database';

let db: Database;
let url: string;

beforeAll(async () => {
  db = await openTestDatabase();
  url = db.orm.config.get('clientUrl')!;
  await seedDemoCity(db.orm.em.fork(), { stores: 30, seed: 3 });
});

afterAll(async () => {
  await db?.close();
});

const count = async (table: string) => Number((await db.orm.em.fork().execute<{ n: string }[]>(`select count(*) as n from ${table}`))[0].n);

test('a statement is explained with its parameters: time, buffers, rows, the index it scanned', async () => {
  const [id] = await db.orm.em.fork().execute<{ id: number }[]>('select id from stores order by id desc limit 1');
  const [explained] = await explainStatements(url, [{ text: 'select id, name from stores where id = $1', values: [String(id.id)] }], true);
  expect(explained.error).toBeUndefined();
  expect(explained.rows).toBe(1);
  expect(explained.buffers).toBeGreaterThan(0);
  expect(explained.executionMs).toBeGreaterThan(0);
  expect(explained.nodes).toEqual([expect.stringMatching(/^Index Scan stores_pkey: 1 rows$/)]);
  expect(explained.text).toMatch(/Buffers: shared/);
});

test('what a statement would write is rolled back, and the transaction around it is not explained', async () => {
  const ads = await count('ads');
  expect(ads).toBeGreaterThan(0);
  const explained = await explainStatements(
    url,
    [
      { text: 'begin', values: [] },
      { text: `set local statement_timeout = 1000`, values: [] },
      { text: 'delete from ads', values: [] },
      { text: 'commit', values: [] },
    ],
    false,
  );
  expect(explained.map((s) => s.sql)).toEqual(['delete from ads']);
  expect(explained[0].nodes).toEqual([`Seq Scan ads: ${ads} rows`]);
  expect(await count('ads')).toBe(ads);
});

test('a statement that fails is reported, not thrown, and the next one still runs', async () => {
  const explained = await explainStatements(
    url,
    [
      { text: 'select * from no_such_table', values: [] },
      { text: 'select count(*) from stores', values: [] },
    ],
    false,
  );
  expect(explained[0].error).toMatch(/no_such_table/);
  expect(explained[1].error).toBeUndefined();
  expect(explained[1].rows).toBe(1);
  const table = formatPlans([{ name: 'broken', path: '/x', statements: explained, again: 2 }]);
  expect(table).toContain('EXPLAIN failed: relation "no_such_table" does not exist');
});

test('the printed statement elides a long column list, keeps expressions, and stays on one line', () => {
  expect(
    preview('select "s0"."id", "s0"."name", "s0"."slug", "s0"."logo", "s0"."image"\n  from "stores" as "s0" where "s0"."id" = 1'),
  ).toBe('select … from "stores" as "s0" where "s0"."id" = 1');
  expect(preview('select s."id" as "id", s."name" as "name", s."slug" as "slug", s."logo" as "logo" from stores s where s.id = 1')).toBe(
    'select … from stores s where s.id = 1',
  );
  expect(preview('select count(*) as n from stores s')).toBe('select count(*) as n from stores s');
  expect(preview(`select id, store_is_open(id, '{}'::jsonb) as open, earth_distance(s.earth, s.earth) as far from stores`)).toMatch(
    /^select id, store_is_open/,
  );
});
