/**
 * A real PostgreSQL per test file: a fresh database on TEST_DATABASE_URL / DATABASE_URL's
 * server when one is set, else an in-memory embedded database. The real migrations run.
 */
import { randomBytes } from 'node:crypto';
import { onServer as onServerWith } from '../../src/db/admin';
import { Database, openDatabase, SessionLimits } from '../../src/db/orm';

let opened = 0;

/** Runs one statement on the server's maintenance connection (create / drop database). */
export async function onServer(serverUrl: string, sql: string): Promise<void> {
  await onServerWith(serverUrl, (em) => em.execute(sql));
}

/**
 * The database is this process's own and is dropped when closed. The name carries a random part
 * besides the pid: a run killed before its teardown leaves its databases behind, and a later
 * process may reuse the pid.
 */
export async function openTestDatabase(
  serving: { poolMax?: number; limits?: SessionLimits; sessionName?: string } = {},
): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!serverUrl) return openDatabase({ ...serving });
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'test'}_jest_${process.pid}_${++opened}_${randomBytes(3).toString('hex')}`;
  await onServer(serverUrl, `create database "${name}"`);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), ...serving });
  return {
    ...db,
    async close() {
      await db.close();
      await onServer(serverUrl, `drop database if exists "${name}" with (force)`);
    },
  };
}

/** Empties every table (ids restart) so each test starts from nothing. */
export async function emptyTables(db: Database): Promise<void> {
  const em = db.orm.em.fork();
  const rows = await em.execute<{ tablename: string }[]>(
    `select tablename from pg_tables where schemaname = 'public' and tablename not in ('mikro_orm_migrations', 'payment_methods')`,
  );
  if (rows.length === 0) return;
  await em.execute(`truncate ${rows.map((r) => `"${r.tablename}"`).join(', ')} restart identity cascade`);
}
