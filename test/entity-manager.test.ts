/**
 * The application's EntityManager (src/db/entity-manager.ts, issue 9 "per-request cost"): a raw
 * statement outside a transaction skips knex's Raw builder and runner, and answers exactly what
 * MikroORM's own path answers: the same rows and results, the same errors (MikroORM's exception
 * classes, knex's SQL-prefixed message), the session limits of the serving pool; inside a
 * transaction the statement still runs on the transaction's connection.
 */
import 'reflect-metadata';
import { DriverException } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Database } from '../src/db/orm';
import { AppEntityManager, EmbeddedEntityManager, executePrepared } from '../src/db/entity-manager';
import { openTestDatabase } from './helpers/database';

let db: Database;

beforeAll(async () => {
  db = await openTestDatabase({ poolMax: 2, limits: { statementTimeoutMs: 1000, lockTimeoutMs: 200, idleInTransactionTimeoutMs: 30_000, acquireTimeoutMs: 200 } });
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
    const refused = (execute: Promise<unknown>) => execute.then(() => undefined, (e: unknown) => e as DriverException);
    const [lean, mikro] = await Promise.all([refused(db.orm.em.fork().execute('select 1')), refused(reference(db.orm.em.fork(), 'select 1'))]);
    await Promise.all(sleeping);
    expect(lean).toBeInstanceOf(DriverException);
    expect(lean!.constructor).toBe(mikro!.constructor);
    const fields = (e: DriverException) => ({ ...e, message: e.message, stack: undefined });
    expect(fields(lean!)).toEqual(fields(mikro!));
    // What databaseFault (src/common/database-faults.ts) reads to answer 503.
    expect(lean!.message).toMatch(/^Knex: Timeout acquiring a connection/);
  });
});

describe('em.executePrepared', () => {
  /** A prepared statement that finds itself among the session's prepared statements. */
  const named = (em: EntityManager, name: string) =>
    executePrepared<{ name: string; n: number; text: string }[]>(
      em,
      name,
      `select ?::text as text, ?::int as n, name from pg_prepared_statements where name = '${name}'`,
      [`it's a "quote"? \\ %_ yes`, 42],
    );

  it('answers what execute answers, from a statement the connection prepared under its name', async () => {
    const em = db.orm.em.fork();
    const sql = `select ?::text as text, ?::int as n, x from unnest(array[1, 2]) as x order by x`;
    const params = [`it's a "quote"? \\ %_ yes`, 7];
    expect(await executePrepared(em, 'lean_rows', sql, params)).toEqual(await em.execute(sql, params));
    // The statement sees itself among the session's prepared statements (a real server only).
    const found = await named(em, 'lean_named');
    expect(found).toEqual(db.embedded ? [] : [{ text: `it's a "quote"? \\ %_ yes`, n: 42, name: 'lean_named' }]);
  });

  it('is execute itself inside a transaction and on the embedded database', async () => {
    // In a transaction the statement goes unnamed (MikroORM's path, values inlined).
    expect(await db.orm.em.fork().transactional((tx) => named(tx, 'lean_in_tx'))).toEqual([]);
    const embedded = Object.create(EmbeddedEntityManager.prototype) as EmbeddedEntityManager;
    const execute = jest.spyOn(embedded, 'execute').mockResolvedValue([]);
    Object.assign(embedded, { namesStatements: false });
    await embedded.executePrepared('x', 'select ?::int', [1]);
    expect(execute).toHaveBeenCalledWith('select ?::int', [1]);
  });

  it('fails as execute fails: MikroORM exception classes, the statement in the message (values as placeholders)', async () => {
    const em = db.orm.em.fork();
    const sql = 'select no_such_column from pg_class where relname = ?';
    const failure = (run: Promise<unknown>) => run.then(() => new DriverException(new Error('no failure')), (e: unknown) => e as DriverException);
    const error = await failure(executePrepared(em, 'lean_broken', sql, ['x']));
    const reference = await failure(em.execute(sql, ['x']));
    expect(error).toBeInstanceOf(DriverException);
    expect(error.constructor).toBe(reference.constructor);
    expect({ code: error.code, sqlState: error.sqlState }).toEqual({ code: reference.code, sqlState: reference.sqlState });
    expect(error.message).toMatch(db.embedded ? /^select no_such_column from pg_class where relname = 'x' - / : /^select no_such_column from pg_class where relname = \$1 - /);
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
      const refused = (execute: Promise<unknown>) => execute.then(() => new DriverException(new Error('not refused')), (e: unknown) => e as DriverException);
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
