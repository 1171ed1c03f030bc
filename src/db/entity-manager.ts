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
import type { AnyEntity, EntityData, LoggingOptions } from '@mikro-orm/core';
import { EntityManager, Knex, PostgreSqlConnection, PostgreSqlDriver, QueryResult } from '@mikro-orm/postgresql';

/** The parts of knex's client the lean path uses (typed `any` by knex). */
interface KnexClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
  query(connection: unknown, sql: string): Promise<{ response: unknown }>;
}

type Result = QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[];

export class AppEntityManager extends EntityManager<PostgreSqlDriver> {
  override async execute<T extends Result = EntityData<AnyEntity>[]>(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    const config = this.config;
    if (typeof queryOrKnex !== 'string' || this.getContext(false).getTransactionContext() || config.getLogger().isEnabled('query', loggerContext)) {
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
