/**
 * MikroORM set-up. `openDatabase` picks the configured PostgreSQL or starts the embedded one,
 * applies pending migrations and hands back the ORM with a `close` that stops both.
 */
import path from 'node:path';
import { DataloaderType, MikroORM, Options } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';
import { AppEntityManager, unnamedStatementsOnly } from './entity-manager';
import { startEmbeddedDatabase } from './embedded';
import { Logger } from '../common/logger';

export type Orm = MikroORM<PostgreSqlDriver>;

/** Compiled code runs migrations from dist/, sources (jest, scripts) from migrations/. */
const runningTs = __filename.endsWith('.ts');
const projectRoot = path.resolve(__dirname, runningTs ? '../..' : '../../..');

/** Per-session limits of the serving pool (migrations and operator scripts run without them). */
export interface SessionLimits {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** Waiting longer for a pooled connection fails the request (503) instead of queueing forever. */
  acquireTimeoutMs: number;
}

export function ormOptions(clientUrl: string, poolMax = 10, logger?: Logger, limits?: SessionLimits): Options<PostgreSqlDriver> {
  const settings = limits
    ? `set statement_timeout = ${Math.floor(limits.statementTimeoutMs)}; set lock_timeout = ${Math.floor(limits.lockTimeoutMs)}; ` +
      `set idle_in_transaction_session_timeout = ${Math.floor(limits.idleInTransactionTimeoutMs)}`
    : undefined;
  return {
    // MikroORM's own messages (migrations applied) become JSON log lines too.
    colors: false,
    logger: (message: string) => logger?.info({ component: 'orm' }, message),
    driver: PostgreSqlDriver,
    // Raw statements outside transactions take a shorter path to the pool (entity-manager.ts).
    entityManager: AppEntityManager,
    clientUrl,
    entities,
    extensions: [Migrator],
    dataloader: DataloaderType.ALL,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    pool: {
      min: 0,
      max: poolMax,
      // Each new connection gets the session limits before the pool hands it out.
      ...(settings && {
        afterCreate: (
          connection: { query(sql: string, done: (error?: Error) => void): void },
          done: (error: Error | undefined, c: unknown) => void,
        ) => connection.query(settings, (error) => done(error, connection)),
      }),
    },
    ...(limits && { driverOptions: { acquireConnectionTimeout: limits.acquireTimeoutMs } }),
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
  /** The serving pool's size and session limits (the app's); scripts leave them out. */
  poolMax?: number;
  limits?: SessionLimits;
}): Promise<Database> {
  const embedded = opts.databaseUrl ? undefined : await startEmbeddedDatabase(opts.dataDir);
  try {
    const url = opts.databaseUrl ?? embedded!.url;
    const poolMax = Math.min(opts.poolMax ?? 10, embedded ? embedded.maxConnections - 2 : Infinity);
    if (opts.migrate !== false && opts.limits) {
      // A migration may rightly run longer than a request may: it gets its own, unlimited pool.
      const migrator = await MikroORM.init(ormOptions(url, 1, opts.logger));
      try {
        await migrator.getMigrator().up();
      } finally {
        await migrator.close(true);
      }
    }
    const orm = await MikroORM.init(ormOptions(url, poolMax, opts.logger, opts.limits));
    if (embedded) unnamedStatementsOnly(orm);
    if (opts.migrate !== false && !opts.limits) await orm.getMigrator().up();
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
