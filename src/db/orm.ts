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
      // Two connections: one holds the migration lock, the other applies the migrations.
      const migrator = await MikroORM.init(ormOptions(url, 2, opts.logger));
      try {
        await migrateOnce(migrator, opts.logger);
      } finally {
        await migrator.close(true);
      }
    }
    const orm = await MikroORM.init(ormOptions(url, poolMax, opts.logger, opts.limits));
    if (embedded) unnamedStatementsOnly(orm);
    if (opts.migrate !== false && !opts.limits) await migrateOnce(orm, opts.logger);
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

/** The advisory lock key every instance's migrator takes (any constant bigint; "migrate" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x6d696772617465n;

/** The connection knex hands out: node-postgres's client. */
interface PooledClient {
  query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * Applies the pending migrations while holding a PostgreSQL advisory lock, so that instances
 * starting together apply each migration once: the others wait, then find nothing pending
 * (docs/decisions.md "Migrations run once"). Returns once the schema is at least this code's:
 * an instance serves only after it. The lock is a session lock on a connection held aside
 * from the one the migrations run on; it goes with that session if the process dies.
 */
export async function migrateOnce(orm: Orm, logger?: Logger): Promise<void> {
  const knex = orm.em.getConnection().getKnex();
  const client = knex.client as { acquireConnection(): Promise<PooledClient>; releaseConnection(c: PooledClient): Promise<unknown> };
  const connection = await client.acquireConnection();
  try {
    const key = MIGRATION_LOCK_KEY.toString();
    const { rows } = await connection.query('select pg_try_advisory_lock($1::bigint) as locked', [key]);
    if (!rows[0]?.locked) {
      logger?.info({ component: 'orm' }, 'another instance is applying migrations; waiting for it');
      await connection.query('select pg_advisory_lock($1::bigint)', [key]);
    }
    try {
      await orm.getMigrator().up();
    } finally {
      await connection.query('select pg_advisory_unlock($1::bigint)', [key]);
    }
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * The serving pool's connections in use, idle, and the requests waiting for one: knex's pool is
 * a tarn.js Pool (numUsed, numFree, numPendingAcquires are tarn's documented API), reached
 * through knex's client; undefined if a knex version keeps it elsewhere.
 */
export function poolStats(orm: Orm): { used: number; free: number; pending: number } | undefined {
  const pool = (
    orm.em.getConnection().getKnex().client as { pool?: Partial<Record<'numUsed' | 'numFree' | 'numPendingAcquires', () => number>> }
  ).pool;
  if (!pool?.numUsed || !pool.numFree || !pool.numPendingAcquires) return undefined;
  return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires() };
}
