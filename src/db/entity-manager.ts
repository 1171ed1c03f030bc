/**
 * The application's EntityManager (MikroORM's `entityManager` option: every fork is one).
 * It changes one thing underneath `em.execute(sql, params)`, the raw statements of the hot
 * reads (`readViews` and each module's `*-query.ts`): outside a transaction, with query
 * logging off, the statement goes to a pooled connection through knex's client directly
 * instead of through a knex `Raw` builder and its runner (docs/decisions.md "Prepared statements, reads
 * without a fork, the lean execute": the builder, its runner, a query id and four events per statement
 * cost more CPU than the rest of the database call).
 *
 * What the caller sees is unchanged: the same text reaches PostgreSQL (MikroORM inlines the
 * parameters, knex numbers what is left), on a connection of the same pool (its session
 * limits, its acquire timeout and `KnexTimeoutError`), knex's own `client.query` sends it
 * (its SQL-prefixed error message, its events), and errors become MikroORM's exceptions as
 * before. A transaction's statements, QueryBuilders and logged statements take MikroORM's
 * path as they always did.
 */
import type { AnyEntity, Configuration, EntityData, LoggingOptions } from '@mikro-orm/core';
import { EntityManager, Knex, PostgreSqlConnection, PostgreSqlDriver, QueryResult } from '@mikro-orm/postgresql';

/** The parts of knex's client the lean path uses (typed `any` by knex). */
interface KnexClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
  query(
    connection: unknown,
    sql: string | { sql: string; bindings: unknown[]; options?: { name: string } },
  ): Promise<{ response: unknown }>;
}

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
 * Each distinct text `executePrepared` has sent, by its statement name. The texts come from code
 * (a few shapes per read path, every value bound), so this stays small; past the cap a text goes
 * unnamed rather than growing every connection's prepared statements without bound.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 64;

function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `app_read_${statementNames.size + 1}`;
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

type Result = QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[];

export class AppEntityManager extends EntityManager<PostgreSqlDriver> {
  override async execute<T extends Result = EntityData<AnyEntity>[]>(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    const trx = this.getContext(false).getTransactionContext<Knex.Transaction>();
    return this.send<T>(queryOrKnex, params, method, Boolean(trx), loggerContext);
  }

  private async send<T extends Result>(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[],
    method: 'all' | 'get' | 'run',
    inTransaction: boolean,
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    const config = this.config;
    if (typeof queryOrKnex !== 'string' || inTransaction || config.getLogger().isEnabled('query', loggerContext)) {
      return super.execute<T>(queryOrKnex, params, method, loggerContext);
    }
    return this.sendPooled<T>(method, () => {
      const formatted = this.getPlatform().formatQuery(config.get('onQuery')(queryOrKnex, params), params);
      return { query: formatted, shown: { sql: formatted, bindings: undefined } };
    });
  }

  /**
   * Rows of a read sent as a named prepared statement: PostgreSQL parses and analyses its text
   * once per connection (and, once its generic plan is chosen, plans it once), and each call
   * sends only the statement's name and its values instead of the whole text with the values
   * inlined (docs/decisions.md "Prepared statements, reads without a fork, the lean execute"). For long
   * statements on hot paths, whose text is the same on every call (every value a `?`).
   * Each `?` becomes `$n`; its value is sent as text and typed by where it stands, so a `?` whose
   * type PostgreSQL cannot infer needs a cast (`?::text`). Lists are refused: `execute` expands
   * them into `in (...)`, a bound parameter would not. Inside a transaction or with query logging
   * on, the statement takes `execute`'s path (values inlined) as every other statement does;
   * where connections share one session (`unnamedStatementsOnly`) it is sent unnamed.
   */
  async executePrepared<T extends EntityData<AnyEntity>>(sql: string, params: PreparedValue[]): Promise<T[]> {
    for (const value of params) {
      if (value !== null && typeof value === 'object')
        throw new Error('executePrepared binds scalars only (lists and objects go through execute)');
    }
    const config = this.config;
    if (this.getContext(false).getTransactionContext() || config.getLogger().isEnabled('query')) {
      return super.execute<T[]>(sql, params);
    }
    return this.sendPooled<T[]>('all', () => {
      const text = config.get('onQuery')(sql, params);
      const name = sharedSessions.has(config) ? undefined : statementName(text);
      return { query: { sql: text, bindings: params, ...(name && { options: { name } }) }, shown: { sql: text, bindings: params } };
    });
  }

  /**
   * The lean path of `execute` and `executePrepared`: one statement on a pooled connection
   * through knex's client, its result as MikroORM shapes it and its errors as MikroORM's
   * exceptions. `build` runs inside, so its errors are converted too; `shown` is what a pool
   * timeout names (as knex's runner would: which statement waited).
   */
  private async sendPooled<T>(
    method: 'all' | 'get' | 'run',
    build: () => { query: Parameters<KnexClient['query']>[1]; shown: { sql: string; bindings: unknown } },
  ): Promise<T> {
    const driver = this.getDriver();
    const connection = driver.getConnection() as PostgreSqlConnection & {
      transformRawResult<R>(result: unknown, method: 'all' | 'get' | 'run'): R;
    };
    try {
      await connection.ensureConnection();
      const { query, shown } = build();
      const client = connection.getKnex().client as KnexClient;
      const pooled = await client.acquireConnection().catch((error: unknown) => {
        if (error instanceof Error && error.name === 'KnexTimeoutError') Object.assign(error, shown);
        throw error;
      });
      try {
        const { response } = await client.query(pooled, query);
        return connection.transformRawResult<T>(response, method);
      } finally {
        await client.releaseConnection(pooled);
      }
    } catch (error) {
      throw driver.convertException(error as Error);
    }
  }
}

/** `em.executePrepared` of the application's EntityManager (every fork is one). */
export function executePrepared<T extends EntityData<AnyEntity>>(em: EntityManager, sql: string, params: PreparedValue[]): Promise<T[]> {
  if (!(em instanceof AppEntityManager)) throw new Error('executePrepared needs the application EntityManager (db/orm.ts)');
  return em.executePrepared<T>(sql, params);
}
