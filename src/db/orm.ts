/**
 * MikroORM set-up. `openDatabase` picks the configured PostgreSQL or starts the embedded one,
 * applies pending migrations and hands back the ORM with a `close` that stops both.
 */
import path from 'node:path';
import { DataloaderType, MikroORM, Options } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';
import { Pool, PoolConfig } from 'pg';
import { AppEntityManager, Orm, unnamedStatementsOnly, useReadPool } from '../common/entity-manager';
import { startEmbeddedDatabase } from './embedded';
import { Logger } from '../common/logger';
import { DEFAULT_SESSION_NAME, sessionNamePrefix } from '../common/session-name';

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

/** Pools made by this process: each gets its own application_name. */
let pools = 0;

export function ormOptions(
  clientUrl: string,
  poolMax = 10,
  logger?: Logger,
  limits?: SessionLimits,
  sessionName = DEFAULT_SESSION_NAME,
): Options<PostgreSqlDriver> {
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
    driverOptions: {
      // Names this pool's sessions in pg_stat_activity (poolConnections, the reminder pass, operators' queries).
      connection: { application_name: `${sessionNamePrefix(sessionName)}${process.pid}-${++pools}` },
      ...(limits && { acquireConnectionTimeout: limits.acquireTimeoutMs }),
    },
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

/**
 * The serving ORM's read pool (common/entity-manager.ts `executePrepared`): `pg`'s own pool on
 * MikroORM's connection options (the same server, session name and type parsers), with the
 * same session limits and acquire timeout, half the ORM's size. Not on the embedded database,
 * which has connections to spare for no second pool.
 */
function readPool(orm: Orm, poolMax: number, limits: SessionLimits, logger?: Logger): Pool {
  // The server and type parsers MikroORM gives knex (knex types `types` more loosely than pg), and this pool's session name.
  const { types, ...server } = orm.em.getConnection().getConnectionOptions();
  const { connection } = orm.config.get<'driverOptions', { connection?: PoolConfig }>('driverOptions');
  const pool = new Pool({
    ...server,
    ...connection,
    types: types as PoolConfig['types'],
    max: Math.max(1, Math.ceil(poolMax / 2)),
    connectionTimeoutMillis: limits.acquireTimeoutMs,
    options:
      `-c statement_timeout=${Math.floor(limits.statementTimeoutMs)} -c lock_timeout=${Math.floor(limits.lockTimeoutMs)} ` +
      `-c idle_in_transaction_session_timeout=${Math.floor(limits.idleInTransactionTimeoutMs)}`,
  });
  // An idle connection the server closed (a restart) is an error event of the pool's, not a crash.
  pool.on('error', (error) => logger?.warn({ err: error }, 'read pool: an idle connection failed'));
  useReadPool(orm, pool);
  return pool;
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
  /** What the sessions are named after (config's `database.sessionName`, PGAPPNAME); `delivery` unless given. */
  sessionName?: string;
}): Promise<Database> {
  const embedded = opts.databaseUrl ? undefined : await startEmbeddedDatabase(opts.dataDir);
  try {
    const url = opts.databaseUrl ?? embedded!.url;
    const poolMax = Math.min(opts.poolMax ?? 10, embedded ? embedded.maxConnections - 2 : Infinity);
    if (opts.migrate !== false && opts.limits) {
      // A migration may rightly run longer than a request may: it gets its own, unlimited pool.
      // Two connections: one holds the migration lock, the other applies the migrations.
      const migrator = await MikroORM.init(ormOptions(url, 2, opts.logger, undefined, opts.sessionName));
      try {
        await migrate(migrator, Boolean(embedded), opts.logger);
      } finally {
        await migrator.close(true);
      }
    }
    const orm = await MikroORM.init(ormOptions(url, poolMax, opts.logger, opts.limits, opts.sessionName));
    if (embedded) unnamedStatementsOnly(orm);
    if (opts.migrate !== false && !opts.limits) await migrate(orm, Boolean(embedded), opts.logger);
    const reads = opts.limits && !embedded ? readPool(orm, poolMax, opts.limits, opts.logger) : undefined;
    return {
      orm,
      embedded: Boolean(embedded),
      async close() {
        await reads?.end();
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

/**
 * The embedded database is one process's own (its data directory), and it serves one
 * transaction at a time: a lock held in a transaction would stall the migrations themselves.
 */
function migrate(orm: Orm, embedded: boolean, logger?: Logger): Promise<unknown> {
  return embedded ? orm.getMigrator().up() : migrateOnce(orm, logger);
}

/**
 * Applies the pending migrations while holding a PostgreSQL advisory lock, so that instances
 * starting together apply each migration once: the others wait, then find nothing pending
 * (docs/decisions.md "The deployment kit"). Returns once the schema is at least this code's:
 * an instance serves only after it. The lock is a transaction lock on a connection held aside
 * (knex's transaction) from the ones the migrations run on; it goes if the process dies.
 */
export async function migrateOnce(orm: Orm, logger?: Logger): Promise<void> {
  const key = MIGRATION_LOCK_KEY.toString();
  await orm.em
    .getConnection()
    .getKnex()
    .transaction(async (trx) => {
      const { rows } = await trx.raw<{ rows: { locked: boolean }[] }>('select pg_try_advisory_xact_lock(?::bigint) as locked', [key]);
      if (!rows[0]?.locked) {
        logger?.info({ component: 'orm' }, 'another instance is applying migrations; waiting for it');
        await trx.raw('select pg_advisory_xact_lock(?::bigint)', [key]);
      }
      await orm.getMigrator().up();
    });
}

/**
 * The serving pool's connections as PostgreSQL sees them (`pg_stat_activity`, by this pool's
 * `application_name`): used (running a statement, other than this one, or inside a transaction)
 * and free (idle). Read from the outside because knex keeps its pool to itself (no documented
 * API). Requests waiting for a connection are invisible from there: they show as 503s
 * (`http_request_duration_seconds`) once the acquire timeout passes.
 */
export async function poolConnections(orm: Orm): Promise<{ used: number; free: number }> {
  const [row] = await orm.em.fork().execute<{ used: number; free: number }[]>(
    `select count(*) filter (where state <> 'idle' and pid <> pg_backend_pid())::int as used,
            count(*) filter (where state = 'idle' or pid = pg_backend_pid())::int as free
       from pg_stat_activity where application_name = current_setting('application_name')`,
  );
  return row;
}
