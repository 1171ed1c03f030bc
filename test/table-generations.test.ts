/**
 * Which tables a write moves (src/db/table-generations.ts, statement-targets.ts,
 * entity-manager.ts; docs/decisions.md "City scale: the answer cache"): a raw statement's
 * targets read from its text (every table when it cannot be read), a flush's change sets, a
 * transaction's writes on commit only, and what triggers and cascades write besides, checked
 * against the database's own catalog. Real PostgreSQL.
 */
import 'reflect-metadata';
import { EntityManager } from '@mikro-orm/postgresql';
import { Database } from '../src/db/orm';
import { EVERY, statementTargets, StatementWrites } from '../src/db/statement-targets';
import { DATABASE_EFFECTS, TableSet } from '../src/db/table-generations';
import { executePrepared } from '../src/db/entity-manager';
import { MainCategory } from '../src/modules/stores/main-category.entity';
import { openTestDatabase } from './helpers/database';

let db: Database;
const em = (): EntityManager => db.orm.em.fork();

beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
});

const tables = (writes: StatementWrites) => (writes === EVERY ? EVERY : [...new Set(writes.map((w) => `${w.kind} ${w.table}`))].sort());

describe('a raw statement', () => {
  it.each([
    ['select * from stores where id = ?', []],
    ['  (select 1) union (select 2)', []],
    [`select id from orders where id = ? for update`, []],
    [`select id from orders for no key update skip locked`, []],
    [`with t as (select 1) select * from t`, []],
    [`set local statement_timeout = 100`, []],
    [`declare reach_rows cursor for select id from stores`, []],
    [`fetch 100 from reach_rows`, []],
    [`close reach_rows`, []],
    [`vacuum (analyze) "stores", "offers"`, []],
    [`select 'delete from ads' as text -- update ads`, []],
    [`insert into promo_redemptions (promo_id, user_id) values (?, ?)`, ['insert promo_redemptions']],
    [`INSERT INTO "public"."Drivers" (id) values (1)`, ['insert Drivers']],
    [
      `insert into idempotency_keys (k) values (?) on conflict (k) do update set k = excluded.k returning *`,
      ['insert idempotency_keys', 'update idempotency_keys'],
    ],
    [`update stores set order_count = order_count + 1 where id = ?`, ['update stores']],
    [`update only "drivers" d set latitude = ? where d.id = ?`, ['update drivers']],
    [`delete from otp_codes where phone_number = ? returning 1`, ['delete otp_codes']],
    [
      `with spent as (delete from phone_verifications where id = ? returning user_id) update users set x = 1 from spent`,
      ['delete phone_verifications', 'update users'],
    ],
    [`with a as (insert into orders (id) values (1) returning id) select * from a`, ['insert orders']],
    [
      `merge into offers o using (select 1) s on true when matched then update set title = 'x' when not matched then insert (title) values ('y')`,
      ['delete offers', 'insert offers', 'update offers'],
    ],
    [`truncate table ads, "offers" restart identity`, ['delete ads', 'delete offers']],
    [`update ads set title = 'a;b'; delete from offers`, ['delete offers', 'update ads']],
  ])('%s writes %j', (sql, expected) => {
    expect(tables(statementTargets(sql))).toEqual(expected);
  });

  it.each([
    `truncate stores cascade`,
    `do $$ begin delete from ads; end $$`,
    `create table x (id int)`,
    `copy ads from stdin`,
    `call refresh_everything()`,
    `explain analyze delete from ads`,
    `with x as (select 1) insert into select_target select * from x; update`,
    `select 'unterminated`,
    `insert /* a comment */ into`,
  ])('%s: its targets cannot be read, so it writes every table', (sql) => {
    expect(statementTargets(sql)).toBe(EVERY);
  });
});

describe('what triggers and cascades write besides', () => {
  it("is what the database's catalog says, no more and no less", async () => {
    const derived = new Map<string, Set<string>>();
    const add = (table: string, kind: string, written: string) => {
      const key = `${table} ${kind}`;
      if (!derived.has(key)) derived.set(key, new Set());
      derived.get(key)!.add(written);
    };
    // Triggers: their events (tgtype's insert 4, delete 8, update 16, truncate 32 bits) and the
    // tables their functions write (a `%I` is the trigger's first argument).
    const triggers = await em().execute<{ table: string; type: number; body: string; args: string }[]>(
      `select c.relname as "table", t.tgtype as type, p.prosrc as body, encode(t.tgargs, 'escape') as args
       from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
       where not t.tgisinternal and c.relnamespace = current_schema()::regnamespace`,
    );
    expect(triggers.length).toBeGreaterThan(0);
    for (const trigger of triggers) {
      const kinds = [
        [4, 'insert'],
        [8, 'delete'],
        [16, 'update'],
        [32, 'delete'],
      ]
        .filter(([bit]) => (trigger.type & (bit as number)) !== 0)
        .map(([, kind]) => kind as string);
      const targets = [...trigger.body.matchAll(/\b(?:insert\s+into|(?<!\bdo\s+)update|delete\s+from)\s+(%I|"?\w+"?)/gi)].map((m) =>
        m[1] === '%I' ? trigger.args.split('\\000')[0] : m[1].replace(/"/g, ''),
      );
      expect([trigger.table, targets.length]).not.toEqual([trigger.table, 0]);
      for (const kind of kinds) for (const target of targets) add(trigger.table, kind, target);
    }
    // Foreign keys whose referring rows a delete removes (c) or clears (n, d).
    const keys = await em().execute<{ referred: string; referring: string }[]>(
      `select f.relname as referred, c.relname as referring from pg_constraint k
       join pg_class c on c.oid = k.conrelid join pg_class f on f.oid = k.confrelid
       where k.contype = 'f' and k.confdeltype in ('c', 'n', 'd') and c.relnamespace = current_schema()::regnamespace`,
    );
    for (const key of keys) add(key.referred, 'delete', key.referring);

    const declared = new Map<string, Set<string>>();
    for (const [table, effects] of Object.entries(DATABASE_EFFECTS)) {
      for (const [kind, writes] of Object.entries(effects)) declared.set(`${table} ${kind}`, new Set(writes.map((w) => w.table)));
    }
    const sorted = (m: Map<string, Set<string>>) => Object.fromEntries([...m].map(([k, v]) => [k, [...v].sort()]).sort());
    expect(sorted(declared)).toEqual(sorted(derived));
  });
});

describe('a write through the ORM', () => {
  const watch = (...names: string[]) => {
    const sets = names.map((name) => [name, new TableSet([name])] as const);
    const before = sets.map(([, set]) => set.generation());
    return () => sets.filter(([, set], i) => set.generation() !== before[i]).map(([name]) => name);
  };
  const ALL = [
    'ads',
    'drivers',
    'main_categories',
    'offers',
    'payment_methods',
    'product_search_names',
    'products',
    'store_reach_version',
    'store_search_names',
    'stores',
  ];

  it('moves the tables of a flush, and of a raw statement outside a transaction once it has run', async () => {
    let moved = watch(...ALL);
    const e = em();
    e.create(MainCategory, { name: 'Food', sortOrder: 1, image: 'https://img.test/c.png' });
    await e.flush();
    expect(moved()).toEqual(['main_categories']);
    moved = watch(...ALL);
    await em().execute(`update drivers set latitude = latitude where false`);
    expect(moved()).toEqual(['drivers']);
  });

  it('moves what triggers and cascades write: a store write moves the reach version and the search names, a store delete its products and ads', async () => {
    let moved = watch(...ALL);
    await em().execute(`update stores set rating = rating where false`);
    expect(moved()).toEqual(['store_reach_version', 'store_search_names', 'stores']);
    moved = watch(...ALL);
    await em().execute(`delete from stores where false`);
    expect(moved()).toEqual(['ads', 'offers', 'products', 'store_reach_version', 'stores']);
  });

  it('in a transaction, moves on commit only; a rollback or a transaction that wrote nothing moves nothing', async () => {
    let moved = watch(...ALL);
    await em().transactional(async (tx) => {
      await tx.execute(`update ads set title = title where false`);
      await tx.transactional(async (inner) => {
        inner.create(MainCategory, { name: 'Nested', sortOrder: 2, image: 'https://img.test/c.png' });
      });
      expect(moved()).toEqual([]);
    });
    expect(moved()).toEqual(['ads', 'main_categories']);

    moved = watch(...ALL);
    await expect(
      em().transactional(async (tx) => {
        await tx.execute(`update ads set title = title where false`);
        tx.create(MainCategory, { name: 'Rolled back', sortOrder: 3, image: 'https://img.test/c.png' });
        await tx.flush();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const fork = em();
    await fork.begin();
    await fork.execute(`update payment_methods set name = name where false`);
    await fork.rollback();
    await em().transactional(async (tx) => {
      await tx.execute(`set local statement_timeout = 1000`);
      await tx.execute(`select * from stores for update`);
    });
    expect(moved()).toEqual([]);
  });

  it('moves every table when a statement says not which it writes', async () => {
    const moved = watch(...ALL);
    await em().execute(`do $$ begin perform 1; end $$`);
    expect(moved()).toEqual(ALL);
  });

  it('executePrepared refuses a statement that writes', async () => {
    await expect(executePrepared(em(), `with x as (delete from ads returning id) select * from x`, [])).rejects.toThrow('reads only');
  });
});
