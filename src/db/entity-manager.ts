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
  query(
    connection: unknown,
    query: string | { sql: string; bindings: unknown[]; options: { name: string } },
  ): Promise<{ response: unknown }>;
}

type Result = QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[];

export class AppEntityManager extends EntityManager<PostgreSqlDriver> {
  /**
   * Whether `executePrepared` may name statements. The embedded database (PGlite) shares one
   * session between its pooled connections, where a name parsed by one connection collides
   * with the same name parsed by another (README "Limits and faults"): its subclass says no.
   */
  protected readonly namesStatements: boolean = true;

  /**
   * `execute(sql, params)` as a named prepared statement: each pooled connection parses and
   * plans `sql` once, then sends only the values (bound, not inlined). PostgreSQL keeps a
   * generic plan once it costs no more than the custom ones, which holds when nothing the
   * planner estimates depends on the values (the caller's job: search reads its terms through
   * scalar subqueries, src/common/name-search.ts), so planning leaves the request (issue 9,
   * search: ~1.3 ms of 4 ms of PostgreSQL time per request). `name` must stand for one text
   * only (node-postgres refuses a name reused for another text on a connection). Inside a
   * transaction, with query logging on, or on the embedded database it is `execute` itself.
   * `params` are strings and numbers (bound as text, as `?` placeholders number them); an error
   * names the statement with its placeholders (`$1`), not the values.
   */
  async executePrepared<T extends EntityData<AnyEntity>[]>(name: string, sql: string, params: (string | number)[]): Promise<T> {
    if (!this.namesStatements || this.getContext(false).getTransactionContext() || this.config.getLogger().isEnabled('query')) {
      return this.execute<T>(sql, params);
    }
    const driver = this.getDriver();
    const connection = driver.getConnection() as PostgreSqlConnection & {
      transformRawResult<R>(result: unknown, method: 'all' | 'get' | 'run'): R;
    };
    try {
      await connection.ensureConnection();
      const client = connection.getKnex().client as KnexClient;
      const pooled = await client.acquireConnection().catch((error: unknown) => {
        if (error instanceof Error && error.name === 'KnexTimeoutError') Object.assign(error, { sql, bindings: params });
        throw error;
      });
      try {
        // knex numbers the `?` placeholders and hands `name` to node-postgres with the values.
        const { response } = await client.query(pooled, { sql, bindings: params, options: { name } });
        return connection.transformRawResult<T>(response, 'all');
      } finally {
        await client.releaseConnection(pooled);
      }
    } catch (error) {
      throw driver.convertException(error as Error);
    }
  }

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

/** The embedded database's EntityManager: no named statements (see `namesStatements`). */
export class EmbeddedEntityManager extends AppEntityManager {
  protected override readonly namesStatements = false;
}

/** `em.executePrepared(...)` on the application's EntityManager, `em.execute(sql, params)` on any other. */
export function executePrepared<T extends EntityData<AnyEntity>[]>(
  em: EntityManager,
  name: string,
  sql: string,
  params: (string | number)[],
): Promise<T> {
  return em instanceof AppEntityManager ? em.executePrepared<T>(name, sql, params) : em.execute<T>(sql, params);
}
