/**
 * The application's EntityManager (src/common/entity-manager.ts): `executePrepared` (a named
 * prepared statement, its values bound) answers what `execute` answers, fails as it fails, and
 * keeps the serving pool's session limits; inside a transaction it runs on the transaction's
 * connection.
 */
import 'reflect-metadata';
import { DriverException } from '@mikro-orm/core';
import { Database } from '../src/db/orm';
import { AppEntityManager, executePrepared } from '../src/common/entity-manager';
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
    expect(em).toBeInstanceOf(AppEntityManager);
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
