/**
 * The application's EntityManager (MikroORM's `entityManager` option: every fork is one).
 * It changes one thing underneath `em.execute(sql, params)`, the raw statements of the hot
 * reads (`readViews` and each module's `*-query.ts`): outside a transaction, with query
 * logging off, the statement goes to a pooled connection through knex's client directly
 * instead of through a knex `Raw` builder and its runner (docs/decisions.md "City scale:
 * per-request cost": the builder, its runner, a query id and four events per statement cost
 * more CPU than the rest of the database call).
 *
 * What the caller sees is unchanged: the same text reaches PostgreSQL (MikroORM inlines the
 * parameters, knex numbers what is left), on a connection of the same pool (its session
 * limits, its acquire timeout and `KnexTimeoutError`), knex's own `client.query` sends it
 * (its SQL-prefixed error message, its events), and errors become MikroORM's exceptions as
 * before. A transaction's statements, QueryBuilders and logged statements take MikroORM's
 * path as they always did.
 */
import type { AnyEntity, EntityData, EventSubscriber, LoggingOptions } from '@mikro-orm/core';
import { EntityManager, Knex, PostgreSqlConnection, PostgreSqlDriver, QueryResult } from '@mikro-orm/postgresql';

/** The parts of knex's client the lean path uses (typed `any` by knex). */
interface KnexClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
  query(connection: unknown, sql: string): Promise<{ response: unknown }>;
}

type Result = QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[];

/**
 * The write generation: how many writes through this process's ORM have committed. The REST
 * answer cache (rest/answer-cache.ts) keeps an answer only while it is unchanged. It moves
 * after a root transaction commits (`committedWrites`, a subscriber of every EntityManager:
 * `em.transactional`, `em.begin/commit`, and the transaction of every flush that writes), and
 * after a raw statement other than a read runs outside a transaction (`execute` below; inside
 * one, the commit counts it). A read-only transaction moves it too: that only costs the
 * cache its entries. Writes by neither a transaction nor `execute` (QueryBuilder writes,
 * `em.nativeUpdate/Delete/Insert`, `em.upsert`, `getConnection().execute`, another process)
 * are not seen: the code base has none, and the cache's one-second window bounds what they
 * could leave stale.
 */
let generation = 0;
export const writeGeneration = (): number => generation;
export const committedWrites: EventSubscriber = {
  afterTransactionCommit: () => {
    generation++;
  },
};

/** A statement that reads only: `select`, or `with` whose parts are not writes. Anything else counts as a write. */
const isRead = (sql: string): boolean =>
  /^\s*\(?\s*select\b/i.test(sql) || (/^\s*with\b/i.test(sql) && !/\b(insert|update|delete|merge)\b/i.test(sql));

export class AppEntityManager extends EntityManager<PostgreSqlDriver> {
  override async execute<T extends Result = EntityData<AnyEntity>[]>(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    const inTransaction = Boolean(this.getContext(false).getTransactionContext());
    const write = !inTransaction && (typeof queryOrKnex !== 'string' || !isRead(queryOrKnex));
    try {
      return await this.send<T>(queryOrKnex, params, method, inTransaction, loggerContext);
    } finally {
      // Counted once the statement has ended, failed or not: a read that started before it
      // then stores nothing (a failed statement changed nothing; counting it costs only hits).
      if (write) generation++;
    }
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
    const driver = this.getDriver();
    const connection = driver.getConnection() as PostgreSqlConnection & {
      transformRawResult<R>(result: unknown, method: 'all' | 'get' | 'run'): R;
    };
    try {
      await connection.ensureConnection();
      const sql = config.get('onQuery')(queryOrKnex, params);
      const formatted = this.getPlatform().formatQuery(sql, params);
      const client = connection.getKnex().client as KnexClient;
      // As knex's runner acquires: a pool timeout says which statement waited.
      const pooled = await client.acquireConnection().catch((error: unknown) => {
        if (error instanceof Error && error.name === 'KnexTimeoutError') Object.assign(error, { sql: formatted, bindings: undefined });
        throw error;
      });
      try {
        const { response } = await client.query(pooled, formatted);
        return connection.transformRawResult<T>(response, method);
      } finally {
        await client.releaseConnection(pooled);
      }
    } catch (error) {
      throw driver.convertException(error as Error);
    }
  }
}
