/**
 * MikroORM set-up. `openDatabase` picks the configured PostgreSQL or starts the embedded one,
 * applies pending migrations and hands back the ORM with a `close` that stops both.
 */
import path from 'node:path';
import { DataloaderType, MikroORM, Options } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';
import { startEmbeddedDatabase } from './embedded';
import { Logger } from '../common/logger';

export type Orm = MikroORM<PostgreSqlDriver>;

/** Compiled code runs migrations from dist/, sources (jest, scripts) from migrations/. */
const runningTs = __filename.endsWith('.ts');
const projectRoot = path.resolve(__dirname, runningTs ? '../..' : '../../..');

export function ormOptions(clientUrl: string, poolMax = 10, logger?: Logger): Options<PostgreSqlDriver> {
  return {
    // MikroORM's own messages (migrations applied) become JSON log lines too.
    colors: false,
    logger: (message: string) => logger?.info({ component: 'orm' }, message),
    driver: PostgreSqlDriver,
    clientUrl,
    entities,
    extensions: [Migrator],
    dataloader: DataloaderType.ALL,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: { min: 0, max: poolMax },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: path.join(projectRoot, runningTs ? 'migrations' : 'dist/migrations'),
      pathTs: path.join(projectRoot, 'migrations'),
      glob: runningTs ? '!(*.d).ts' : '!(*.d).js',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
    },
  };
}

export interface Database {
  orm: Orm;
  embedded: boolean;
  close(): Promise<void>;
}

export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir?: string;
  migrate?: boolean;
  logger?: Logger;
}): Promise<Database> {
  const embedded = opts.databaseUrl ? undefined : await startEmbeddedDatabase(opts.dataDir);
  try {
    const url = opts.databaseUrl ?? embedded!.url;
    const orm = await MikroORM.init(ormOptions(url, embedded ? Math.min(10, embedded.maxConnections - 2) : 10, opts.logger));
    if (opts.migrate !== false) await orm.getMigrator().up();
    return {
      orm,
      embedded: Boolean(embedded),
      async close() {
        await orm.close(true);
        await embedded?.stop();
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
