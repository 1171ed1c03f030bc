/**
 * The application's EntityManager (MikroORM's `entityManager` option: every fork is one): adds
 * `executePrepared`, the hot reads' way to the database: a named prepared statement sent on the
 * serving ORM's read pool (`pg`'s documented `Pool.query`; db/orm.ts `openDatabase` attaches
 * it), or through knex's public `raw(...).options({ name })` where there is none (the embedded
 * database, scripts). Its errors are converted as MikroORM converts them.
 */
import type { AnyEntity, Configuration, EntityData, MikroORM } from '@mikro-orm/core';
import { EntityManager, Knex, PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';

/** The application's ORM (opened by db/orm.ts `openDatabase`). */
export type Orm = MikroORM<PostgreSqlDriver>;

/** A value `executePrepared` binds: sent as text, typed by where its placeholder stands. */
export type PreparedValue = string | number | boolean | null;

/**
 * ORMs whose connections share one database session (the embedded database serves every pooled
 * connection from one): a statement name prepared by one connection collides with the next
 * connection's Parse of it (README "Limits and faults"), so their prepared reads go unnamed.
 */
const sharedSessions = new WeakSet<Configuration>();

export function unnamedStatementsOnly(orm: { config: Configuration }): void {
  sharedSessions.add(orm.config);
}

/**
 * The read pool of each serving ORM: executePrepared's statements skip knex's builder and
 * runner, which cost 10–25 % of nearby's and store details' req/s (docs/perf/2026-11-26-read-pool.md).
 */
const readPools = new WeakMap<Configuration, Pool>();

export function useReadPool(orm: { config: Configuration }, pool: Pool): void {
  readPools.set(orm.config, pool);
}

export function readPoolOf(orm: { config: Configuration }): Pool | undefined {
  return readPools.get(orm.config);
}

/** Forks made by `onOneConnection`, and the read pool's connection each sends its statements on. */
const heldConnections = new WeakMap<EntityManager, PoolClient>();

/** Each text with its `?` placeholders numbered (`$1`...), as knex numbers them: a text's numbering depends on the text alone. */
const nativeTexts = new Map<string, string>();

/**
 * Each distinct text `executePrepared` has sent, by its statement name. The texts come from code
 * (a few shapes per read path, every value bound), so this stays small; past the cap a text goes
 * unnamed rather than growing every connection's prepared statements without bound.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 64;

function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `app_stmt_${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * Statement texts (or parts) built the first time each key is asked for. For texts that depend on
 * code only (a key condition, a distance expression: a few keys), so a hot read sends the same
 * string each time, whose statement name and reading are then one map lookup, instead of
 * rebuilding ~2 KB of select list per request.
 */
export function textsBuiltOnce(): (key: string, build: () => string) => string {
  const texts = new Map<string, string>();
  return (key, build) => {
    let text = texts.get(key);
    if (text === undefined) texts.set(key, (text = build()));
    return text;
  };
}

export class AppEntityManager extends EntityManager<PostgreSqlDriver> {
  /**
   * Rows of a read sent as a named prepared statement: PostgreSQL parses and analyses its text
   * once per connection (and, once its generic plan is chosen, plans it once), and each call
   * sends only the statement's name and its values instead of the whole text with the values
   * inlined (docs/decisions.md "Prepared statements, the lean execute"). For long statements on
   * hot paths, whose text is the same on every call (every value a `?`). Each `?` becomes `$n`;
   * its value is sent as text and typed by where it stands, so a `?` whose type PostgreSQL cannot
   * infer needs a cast (`?::text`). Lists are refused: `execute` expands them into `in (...)`, a
   * bound parameter would not. Inside a transaction it is sent, named, on the transaction's own
   * connection (knex's public `raw(...).transacting(trx).options({ name })`), so a write on a hot
   * path (checkout's outbox rows) is planned once per connection too. With query logging on, the
   * statement takes `execute`'s path (values inlined, logged) as every other statement does;
   * where connections share one session (`unnamedStatementsOnly`) it is sent unnamed.
   * `named: false`: for texts built from the request's choices (a filter's conditions, a sort),
   * too many to keep prepared on every connection; planned with their values each time, but
   * still sent on the read pool. `readPool: false`: outside a transaction, sent on the ORM's own
   * pool instead (named, through knex's runner): for background work (the notification worker)
   * that must not take the read pool's few connections from the requests and subscriptions.
   */
  async executePrepared<T extends EntityData<AnyEntity>>(
    sql: string,
    params: PreparedValue[],
    options: PreparedOptions = {},
  ): Promise<T[]> {
    for (const value of params) {
      if (value !== null && typeof value === 'object')
        throw new Error('executePrepared binds scalars only (lists and objects go through execute)');
    }
    const config = this.config;
    if (config.getLogger().isEnabled('query')) return this.execute<T[]>(sql, params);
    const text = config.get('onQuery')(sql, params);
    const name = sharedSessions.has(config) || options.named === false ? undefined : statementName(text);
    const trx = this.getContext(false).getTransactionContext<Knex.Transaction>();
    const pool = trx || options.readPool === false ? undefined : (heldConnections.get(this) ?? readPools.get(config));
    try {
      if (trx) {
        // The transaction's connection, through knex's runner; pg takes `name` from the query's options.
        const raw = this.getKnex().raw(text, params).transacting(trx);
        return ((await (name ? raw.options({ name }) : raw)) as { rows: T[] }).rows;
      }
      if (pool) {
        const sent = nativeText(this, text, params);
        return (
          await pool.query<T>({ name, text: sent, values: params }).catch((error: Error) => {
            // Named by its statement in the logs, as knex names the ORM's.
            if (typeof (error as { code?: unknown }).code === 'string') error.message = `${sent} - ${error.message}`;
            throw error;
          })
        ).rows;
      }
      // knex's own runner (the pool, its acquire timeout), values bound.
      const raw = this.getKnex().raw(text, params);
      return ((await (name ? raw.options({ name }) : raw)) as { rows: T[] }).rows;
    } catch (error) {
      throw this.getDriver().convertException(error as Error);
    }
  }
}

/**
 * `work` with a fork of `em` whose `executePrepared` statements outside a transaction are all sent
 * on one connection of the read pool, held until `work` ends: statements that must follow each
 * other closely (checkout's reads, then its one-statement write) do not wait for the pool between
 * them. Each still commits on its own. Where there is no read pool, `em` itself.
 */
export async function onOneConnection<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const pool = readPools.get(em.config);
  if (!pool) return work(em);
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
  const fork = em.fork();
  heldConnections.set(fork, client);
  let broken: Error | undefined;
  try {
    return await work(fork);
  } catch (error) {
    // A statement's error leaves the connection usable; a connection's own (no SQLSTATE) does not.
    if (error instanceof Error && typeof (error as { code?: unknown }).code !== 'string' && !('sqlState' in error)) broken = error;
    throw error;
  } finally {
    heldConnections.delete(fork);
    client.release(broken);
  }
}

/** `text` with its `?` numbered (`$1`...), built once per text (a text of `executePrepared` binds scalars only). */
function nativeText(em: EntityManager, text: string, params: PreparedValue[]): string {
  let native = nativeTexts.get(text);
  if (native === undefined) {
    native = em.getKnex().raw(text, params).toSQL().toNative().sql;
    if (nativeTexts.size < MAX_NAMED_STATEMENTS) nativeTexts.set(text, native);
  }
  return native;
}

/** `executePrepared`'s options: `named: false` (planned each time), `readPool: false` (the ORM's pool outside transactions). */
export interface PreparedOptions {
  named?: boolean;
  readPool?: boolean;
}

/** `em.executePrepared` of the application's EntityManager (every fork is one). */
export function executePrepared<T extends EntityData<AnyEntity>>(
  em: EntityManager,
  sql: string,
  params: PreparedValue[],
  options?: PreparedOptions,
): Promise<T[]> {
  if (!(em instanceof AppEntityManager)) throw new Error('executePrepared needs the application EntityManager (db/orm.ts)');
  return em.executePrepared<T>(sql, params, options);
}
