/**
 * The application's EntityManager (src/db/entity-manager.ts, issue 9 "per-request cost"): a raw
 * statement outside a transaction skips knex's Raw builder and runner, and answers exactly what
 * MikroORM's own path answers: the same rows and results, the same errors (MikroORM's exception
 * classes, knex's SQL-prefixed message), the session limits of the serving pool; inside a
 * transaction the statement still runs on the transaction's connection. `executePrepared` (a
 * named prepared statement, its values bound) answers what `execute` answers.
 */
import 'reflect-metadata';
import { DriverException } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Database } from '../src/db/orm';
import { AppEntityManager, executePrepared } from '../src/db/entity-manager';
import { openTestDatabase } from './helpers/database';

let db: Database;

beforeAll(async () => {
  db = await openTestDatabase({
    poolMax: 2,
    limits: { statementTimeoutMs: 1000, lockTimeoutMs: 200, idleInTransactionTimeoutMs: 30_000, acquireTimeoutMs: 200 },
  });
}, 60_000);

afterAll(async () => {
  await db?.close();
});

/** MikroORM's own `execute` (knex Raw and runner), the reference. */
const reference = (em: EntityManager, sql: string, params?: unknown[], method?: 'all' | 'get' | 'run') =>
  EntityManager.prototype.execute.call(em, sql, params, method);

/** How many statements went through a knex builder's runner while `work` ran. */
async function rawBuilt(work: () => Promise<unknown>): Promise<number> {
  const client = db.orm.em.getConnection().getKnex().client as { runner(builder: unknown): unknown };
  const spy = jest.spyOn(client, 'runner');
  try {
    await work();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe('em.execute outside a transaction', () => {
  it('is the application EntityManager on every fork, and skips the knex builder', async () => {
    const em = db.orm.em.fork();
    expect(em).toBeInstanceOf(AppEntityManager);
    expect(await rawBuilt(() => em.execute('select 1 as one'))).toBe(0);
    expect(await rawBuilt(() => reference(em, 'select 1 as one'))).toBe(1);
  });

  it('answers what MikroORM answers: rows, one row, results, with parameters of every kind', async () => {
    const em = db.orm.em.fork();
    const sql = `select ?::text as text, ?::int as n, ?::timestamptz as at, ?::text as nothing, x as listed
                   from unnest(array[1, 2, 3]) as x where x in (?) order by x`;
    const params = [`it's a "quote"? \\ yes`, 42, new Date('2026-11-23T10:00:00.123Z'), null, [1, 3]];
    const all = await em.execute(sql, params);
    expect(all).toEqual(await reference(em, sql, params));
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ text: `it's a "quote"? \\ yes`, n: 42, nothing: null, listed: 1 });
    expect(await em.execute(sql, params, 'get')).toEqual(await reference(em, sql, params, 'get'));

    await em.execute('create table if not exists lean_run (id int)');
    const insert = 'insert into lean_run values (?), (?) returning id';
    expect(await em.execute(insert, [1, 2], 'run')).toEqual(await reference(em, insert, [1, 2], 'run'));
    expect(await em.execute(insert, [1, 2], 'run')).toMatchObject({ affectedRows: 2, insertId: 1 });
  });

  it('fails as MikroORM fails: its exception classes and knex message, and the pool session limits hold', async () => {
    const em = db.orm.em.fork();
    const failure = async (execute: () => Promise<unknown>) => {
      const error = await execute().then(
        () => undefined,
        (e: unknown) => e as DriverException,
      );
      expect(error).toBeInstanceOf(DriverException);
      return { name: error!.name, message: error!.message, code: error!.code, sqlState: error!.sqlState };
    };
    const broken = 'select no_such_column from pg_class where relname = ?';
    expect(await failure(() => em.execute(broken, ['x']))).toEqual(await failure(() => reference(em, broken, ['x'])));
    expect((await failure(() => em.execute(broken, ['x']))).message).toMatch(/^select no_such_column from pg_class where relname = 'x' - /);

    // The serving pool's statement timeout (1 s here) cancels a long statement on this path too.
    const slow = await failure(() => em.execute('select pg_sleep(3)'));
    expect(slow).toMatchObject({ code: '57014' });
  });

  it('waits at most the acquire timeout for a pooled connection, and is refused as before', async () => {
    const held = [db.orm.em.fork(), db.orm.em.fork()];
    const sleeping = held.map((em) => em.execute('select pg_sleep(0.6)').catch(() => undefined));
    await new Promise((r) => setTimeout(r, 50));
    const refused = (execute: Promise<unknown>) =>
      execute.then(
        () => undefined,
        (e: unknown) => e as DriverException,
      );
    const [lean, mikro] = await Promise.all([
      refused(db.orm.em.fork().execute('select 1')),
      refused(reference(db.orm.em.fork(), 'select 1')),
    ]);
    await Promise.all(sleeping);
    expect(lean).toBeInstanceOf(DriverException);
    expect(lean!.constructor).toBe(mikro!.constructor);
    const fields = (e: DriverException) => ({ ...e, message: e.message, stack: undefined });
    expect(fields(lean!)).toEqual(fields(mikro!));
    // What databaseFault (src/common/database-faults.ts) reads to answer 503.
    expect(lean!.message).toMatch(/^Knex: Timeout acquiring a connection/);
  });
});

describe('em.execute inside a transaction', () => {
  it('runs on the transaction connection (through MikroORM) and sees its uncommitted rows', async () => {
    const em = db.orm.em.fork();
    await em.execute('create table if not exists lean_tx (id int)');
    let seen: unknown;
    await em
      .transactional(async (tx) => {
        await tx.execute('insert into lean_tx values (?)', [5]);
        seen = await tx.execute('select id from lean_tx');
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(seen).toEqual([{ id: 5 }]);
    expect(await em.execute('select id from lean_tx')).toEqual([]);
  });

  it('answers a held lock with the exception MikroORM gives, outside and inside a transaction alike', async () => {
    const em = db.orm.em.fork();
    await em.execute('create table if not exists lean_lock (id int)');
    const holder = db.orm.em.fork();
    let release!: () => void;
    const held = holder.transactional(async (tx) => {
      await tx.execute('lock table lean_lock in access exclusive mode');
      await new Promise<void>((r) => (release = r));
    });
    await new Promise((r) => setTimeout(r, 50));
    try {
      const refused = (execute: Promise<unknown>) =>
        execute.then(
          () => new DriverException(new Error('not refused')),
          (e: unknown) => e as DriverException,
        );
      const lean = await refused(em.execute('select * from lean_lock'));
      const mikro = await refused(reference(em, 'select * from lean_lock'));
      const inside = await refused(em.transactional((tx) => tx.execute('select * from lean_lock')));
      expect(lean).toBeInstanceOf(DriverException);
      for (const other of [mikro, inside]) {
        expect(lean.constructor).toBe(other.constructor);
        expect({ ...lean, message: lean.message }).toEqual({ ...other, message: other.message });
      }
      expect(lean).toMatchObject({ code: '55P03', message: expect.stringMatching(/^select \* from lean_lock - /) });
    } finally {
      release();
      await held;
    }
  });
});

/** The statement names and values knex's client sent while `work` ran. */
async function sentQueries(work: () => Promise<unknown>): Promise<{ name?: string; bindings: unknown[] }[]> {
  const client = db.orm.em.getConnection().getKnex().client as { _query(connection: unknown, obj: unknown): Promise<unknown> };
  const spy = jest.spyOn(client, '_query');
  try {
    await work();
    return spy.mock.calls.map(([, obj]) => {
      const { options, bindings } = obj as { options?: { name: string }; bindings: unknown[] };
      return { name: options?.name, bindings };
    });
  } finally {
    spy.mockRestore();
  }
}

describe('executePrepared', () => {
  const sql = `select ?::text as text, ?::int as n, ll_to_earth(?, ?)::text as here, ?::boolean as yes, ?::text as nothing, x
                 from generate_series(1, 3) as x where x <= ? order by x`;
  const params = [`it's a "quote"? \\ yes`, 42, 33.5731, -7.5898, true, null, 2];

  it('answers what execute answers, each value bound to a named statement, prepared once per connection', async () => {
    const em = db.orm.em.fork();
    const rows = await executePrepared(em, sql, params);
    expect(rows).toEqual(await em.execute(sql, params));
    // A value is typed by where its placeholder stands: one PostgreSQL cannot infer is text.
    expect(await executePrepared(em, 'select ? as untyped', [true])).toEqual([{ untyped: 'true' }]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ text: `it's a "quote"? \\ yes`, n: 42, yes: true, nothing: null, x: 1 });

    const sent = await sentQueries(async () => {
      await executePrepared(em, sql, params);
      await executePrepared(em, sql, [...params.slice(0, 6), 3]);
    });
    expect(sent).toHaveLength(2);
    expect(sent[0].name).toMatch(/^app_read_\d+$/);
    expect(sent[1].name).toBe(sent[0].name);
    expect(sent[1].bindings).toEqual([...params.slice(0, 6), 3]);
  });

  it('refuses lists and objects, fails as execute fails, and keeps the session limits', async () => {
    const em = db.orm.em.fork();
    await expect(executePrepared(em, 'select 1 where 1 in (?)', [[1, 2] as unknown as number])).rejects.toThrow(/scalars only/);
    const broken = 'select no_such_column from pg_class where relname = ?';
    const error = await executePrepared(em, broken, ['x']).then(
      () => undefined,
      (e: unknown) => e as DriverException,
    );
    expect(error).toBeInstanceOf(DriverException);
    // The statement as sent (its values bound, not inlined), then PostgreSQL's message.
    expect(error!.message).toBe('select no_such_column from pg_class where relname = $1 - column "no_such_column" does not exist');
    await expect(executePrepared(em, 'select pg_sleep(?)', [3])).rejects.toMatchObject({ code: '57014' });
  });

  it("inside a transaction runs on the transaction's connection, values inlined, and sees its rows", async () => {
    const em = db.orm.em.fork();
    await em.execute('create table if not exists prepared_tx (id int)');
    let seen: unknown;
    await em
      .transactional(async (tx) => {
        await tx.execute('insert into prepared_tx values (?)', [7]);
        seen = await executePrepared(tx, 'select id from prepared_tx where id = ?', [7]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(seen).toEqual([{ id: 7 }]);
  });
});
