/**
 * The application's EntityManager (src/common/entity-manager.ts): `executePrepared` (a named
 * prepared statement on the serving ORM's read pool, its values bound) answers what `execute`
 * answers, fails as it fails, and keeps the serving pool's session limits; inside a transaction
 * it runs on the transaction's connection, named as well.
 */
import 'reflect-metadata';
import net from 'node:net';
import { Pool } from 'pg';
import { DriverException } from '@mikro-orm/core';
import { Database } from '../src/db/orm';
import { AppEntityManager, executePrepared, onOneConnection, readPoolOf } from '../src/common/entity-manager';
import { databaseFault } from '../src/common/database-faults';
import { openTestDatabase } from './helpers/database';

let db: Database;

beforeAll(async () => {
  db = await openTestDatabase({
    poolMax: 2,
    limits: { statementTimeoutMs: 1000, lockTimeoutMs: 200, idleInTransactionTimeoutMs: 30_000, acquireTimeoutMs: 200 },
    sessionName: 'em-test', // as config's database.sessionName (PGAPPNAME) gives it
  });
}, 60_000);

afterAll(async () => {
  await db?.close();
});

/** One entry per connection of the read pool: holding them all leaves none for the next caller. */
const readConnections = () => Array.from({ length: readPoolOf(db.orm)!.options.max });

describe('executePrepared', () => {
  const sql = `select ?::text as text, ?::int as n, ll_to_earth(?, ?)::text as here, ?::boolean as yes, ?::text as nothing, x
                 from generate_series(1, 3) as x where x <= ? order by x`;
  const params = [`it's a "quote"? \\ yes`, 42, 33.5731, -7.5898, true, null, 2];

  it('answers what execute answers, each value bound to a named statement, prepared once per connection', async () => {
    const em = db.orm.em.fork();
    expect(em).toBeInstanceOf(AppEntityManager);
    const rows = await executePrepared(em, sql, params);
    expect(rows).toEqual(await em.execute(sql, params));
    // A value is typed by where its placeholder stands: one PostgreSQL cannot infer is text.
    expect(await executePrepared(em, 'select ? as untyped', [true])).toEqual([{ untyped: 'true' }]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ text: `it's a "quote"? \\ yes`, n: 42, yes: true, nothing: null, x: 1 });

    // Prepared once on the read pool's connection (the test's pool has one), named, its values bound.
    await executePrepared(em, sql, [...params.slice(0, 6), 3]);
    const prepared = await executePrepared<{ name: string; statement: string }>(
      em,
      `select name, statement from pg_prepared_statements where statement like ?`,
      ['%generate_series%'],
    );
    expect(prepared).toHaveLength(1);
    expect(prepared[0].name).toMatch(/^app_stmt_\d+$/);
    expect(prepared[0].statement).toContain('where x <= $7');
    expect(prepared[0].statement).not.toContain('quote');
  });

  it("reads on sessions like the ORM's: the same limits and session name", async () => {
    const em = db.orm.em.fork();
    const settings = `select current_setting('statement_timeout') as statement, current_setting('lock_timeout') as lock,
                             current_setting('idle_in_transaction_session_timeout') as idle, current_setting('application_name') as app`;
    expect(await executePrepared(em, settings, [])).toEqual(await em.execute(settings));
    expect((await em.execute(settings))[0].app).toMatch(new RegExp(`^em-test ${process.pid}-\\d+$`));
  });

  it('answers a busy fault (503) when no read connection comes free within the acquire timeout', async () => {
    const em = db.orm.em.fork();
    const holding = Promise.all(readConnections().map(() => executePrepared(em, 'select pg_sleep(?)', [0.8])));
    const error = await executePrepared(em, 'select 1 as one', []).then(
      () => undefined,
      (e: unknown) => e,
    );
    await holding;
    expect(databaseFault(error)).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('answers a busy fault (503) when a new read connection does not open within the acquire timeout', async () => {
    // A server that accepts and never answers: pg's pool gives up connecting after connectionTimeoutMillis.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const pool = new Pool({ host: '127.0.0.1', port: (silent.address() as net.AddressInfo).port, connectionTimeoutMillis: 200 });
    try {
      const error = await pool.query('select 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ message: 'Connection terminated due to connection timeout' });
      expect(databaseFault(error)).toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      await pool.end();
      silent.close();
    }
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

  it("inside a transaction runs on the transaction's connection, named, its values bound, and sees its rows", async () => {
    const em = db.orm.em.fork();
    await em.execute('create table if not exists prepared_tx (id int)');
    let seen: unknown;
    let prepared: unknown;
    await em
      .transactional(async (tx) => {
        await tx.execute('insert into prepared_tx values (?)', [7]);
        seen = await executePrepared(tx, 'select id from prepared_tx where id = ?', [7]);
        // The transaction's own session holds it (the read pool's sessions are others).
        prepared = await tx.execute(`select name, statement from pg_prepared_statements where statement like '%from prepared_tx%'`);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(seen).toEqual([{ id: 7 }]);
    expect(prepared).toEqual([{ name: expect.stringMatching(/^app_stmt_\d+$/), statement: 'select id from prepared_tx where id = $1' }]);
  });

  it('a statement first prepared in transactions that failed runs in later ones, on each connection', async () => {
    const divide = 'select 10 / ?::int as q, pg_backend_pid() as pid';
    // Two transactions at once hold both of the pool's connections; each prepares the statement there.
    const both = (value: number) =>
      Promise.allSettled(
        [0, 1].map(() =>
          db.orm.em.fork().transactional(async (tx) => {
            await tx.execute('select pg_sleep(0.1)');
            return (await executePrepared<{ q: number; pid: number }>(tx, divide, [value]))[0];
          }),
        ),
      );
    const failed = await both(0);
    expect(failed.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual([
      expect.stringContaining('division by zero'),
      expect.stringContaining('division by zero'),
    ]);
    const ran = await both(5);
    const rows = ran.map((r) => (r.status === 'fulfilled' ? r.value : r.reason));
    expect(rows).toEqual([
      { q: 2, pid: expect.any(Number) },
      { q: 2, pid: expect.any(Number) },
    ]);
    expect(new Set(rows.map((r: { pid: number }) => r.pid)).size).toBe(2);
  });
});

describe('onOneConnection', () => {
  it("sends its fork's statements on one read-pool connection, held until the work ends, each committed on its own", async () => {
    expect(readConnections()).toHaveLength(1);
    const em = db.orm.em.fork();
    const statement = 'select pg_backend_pid() as pid, txid_current()::text as tx';
    const [a, b] = await onOneConnection(em, async (one) => {
      const [first] = await executePrepared<{ pid: number; tx: string }>(one, statement, []);
      // The read pool's only connection is held: another caller waits for it (and gives up: 503).
      const other = await executePrepared(em, 'select 1 as one', []).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(databaseFault(other)).toMatchObject({ code: 'UNAVAILABLE' });
      await expect(executePrepared(one, 'select 1 / ?::int as q', [0])).rejects.toThrow(/division by zero/);
      const [second] = await executePrepared<{ pid: number; tx: string }>(one, statement, []);
      return [first, second];
    });
    expect(a.pid).toBe(b.pid);
    expect(a.tx).not.toBe(b.tx);
    // Released: the next caller has it.
    expect(await executePrepared(em, 'select 1 as one', [])).toEqual([{ one: 1 }]);
  });
});
