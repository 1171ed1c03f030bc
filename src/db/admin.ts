/**
 * Databases of a PostgreSQL server, made by the tests, the bench, the soak and the cluster run:
 * one helper, so that each makes and names them the same way.
 */
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';

type AdminEm = MikroORM<PostgreSqlDriver>['em'];

/** Runs `work` on the server's maintenance connection (create / drop database), then closes it. */
export async function onServer<T>(serverUrl: string, work: (em: AdminEm) => Promise<T>): Promise<T> {
  const admin = await MikroORM.init<PostgreSqlDriver>({
    driver: PostgreSqlDriver,
    clientUrl: serverUrl,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    allowGlobalContext: true,
  });
  try {
    return await work(admin.em);
  } finally {
    await admin.close(true);
  }
}

/**
 * The URL of database `<server's database>_<suffix>` on the server. `fresh`: dropped and made
 * empty; `keep`: made only when missing (the bench keeps its built city between runs).
 */
export async function serverDatabase(serverUrl: string, suffix: string, mode: 'fresh' | 'keep'): Promise<string> {
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_${suffix}`;
  await onServer(serverUrl, async (em) => {
    if (mode === 'fresh') await em.execute(`drop database if exists "${name}" with (force)`);
    else if ((await em.execute(`select 1 from pg_database where datname = ?`, [name])).length > 0) return;
    await em.execute(`create database "${name}"`);
  });
  url.pathname = `/${name}`;
  return url.toString();
}
