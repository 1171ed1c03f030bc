/**
 * Instances starting together on a fresh database (deploy/compose.yaml starts two at once):
 * each migration is applied once, every instance starts, and none serves before the schema
 * is at its code's level. Needs a PostgreSQL server (DATABASE_URL): the embedded database is
 * one process's own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Database, openDatabase } from '../src/db/orm';
import { onServer } from './helpers/database';

const SERVER_URL = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;
const MIGRATIONS = fs.readdirSync(path.resolve(__dirname, '../migrations')).filter((f) => /^Migration\d+_.*\.ts$/.test(f)).length;
const LIMITS = { statementTimeoutMs: 60_000, lockTimeoutMs: 60_000, idleInTransactionTimeoutMs: 60_000, acquireTimeoutMs: 60_000 };

const name = `test_jest_${process.pid}_migrate_once`;
const opened: Database[] = [];
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  if (SERVER_URL) await onServer(SERVER_URL, `drop database if exists "${name}" with (force)`);
});

(SERVER_URL ? test : test.skip)(
  'three instances migrating a fresh database at once apply each migration once and all start',
  async () => {
    await onServer(SERVER_URL!, `create database "${name}"`);
    const url = new URL(SERVER_URL!);
    url.pathname = `/${name}`;
    // As main.ts opens it (the serving pool's limits: the migrator runs on its own pool first).
    const results = await Promise.allSettled(
      [1, 2, 3].map(() => openDatabase({ databaseUrl: url.toString(), poolMax: 2, limits: LIMITS })),
    );
    for (const result of results) if (result.status === 'fulfilled') opened.push(result.value);
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'started'))).toEqual(['started', 'started', 'started']);

    const em = opened[0].orm.em.fork();
    const applied = await em.execute<{ name: string; times: string }[]>(
      'select name, count(*)::text as times from mikro_orm_migrations group by name order by name',
    );
    expect(applied).toHaveLength(MIGRATIONS);
    expect(applied.filter((row) => row.times !== '1')).toEqual([]);
    // Every instance, once started, sees the whole schema (the last migration's tables included).
    for (const db of opened) {
      const [{ pending }] = await db.orm.em
        .fork()
        .execute<{ pending: string }[]>(`select (${MIGRATIONS} - count(*))::text as pending from mikro_orm_migrations`);
      expect(pending).toBe('0');
      expect(await db.orm.getMigrator().getPendingMigrations()).toEqual([]);
    }
    // Three ORMs and every migration, one instance after the other: slow on a loaded machine.
  },
  180_000,
);
