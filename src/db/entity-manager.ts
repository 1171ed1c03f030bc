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
import { ChangeSetType, helper } from '@mikro-orm/core';
import type { AnyEntity, Configuration, EntityData, EventSubscriber, LoggingOptions, UnitOfWork } from '@mikro-orm/core';
import { EntityManager, Knex, PostgreSqlConnection, PostgreSqlDriver, QueryResult } from '@mikro-orm/postgresql';
import { EVERY, StatementWrites, statementTargets, TableWrite, WriteKind } from './statement-targets';
import { moveTables, reachedTables } from './table-generations';

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

/**
 * The tables' write generations (db/table-generations.ts), which the REST answer cache keeps
 * an answer by. A write moves the generations of the tables it wrote (and of those their
 * triggers and cascades write) once it is committed:
 * - a flush: its change sets' tables (entity metadata's `tableName`, a collection's pivot
 *   table), when the flush's own transaction commits, or with the transaction it runs in;
 * - a raw `execute` (below): the targets its text names (db/statement-targets.ts; a text it
 *   cannot account for moves every table), once the statement has ended outside a transaction,
 *   or with the transaction it runs in (`executePrepared` refuses anything but a read);
 * - a transaction's writes accumulate (nested ones under the root) and move when the root
 *   commits; a rollback moves nothing, nor does a transaction that wrote nothing.
 * Not seen, bounded by the cache's one-second window: a `select` that calls a writing function
 * (a statement is classed by its words), QueryBuilder writes not passed to `em.execute`,
 * `em.nativeUpdate/Delete/Insert`, `em.upsert`, `getConnection().execute`, and other
 * processes; the code base has none of the first five.
 */
const pending = new WeakMap<object, Set<string> | typeof EVERY>();

/**
 * The root of a (possibly nested) transaction: MikroORM marks a savepoint's transaction with its
 * parent under a private symbol (AbstractSqlConnection's `parentTransaction`), and runs the
 * commit events for the root only.
 */
function rootTransaction(trx: object): object {
  for (;;) {
    const parent = Object.getOwnPropertySymbols(trx).find((symbol) => symbol.description === 'parentTransaction');
    if (!parent) return trx;
    trx = (trx as Record<symbol, object>)[parent];
  }
}

/** Adds `writes` to what the transaction `trx` will move when it commits. */
function writeInTransaction(trx: object, writes: StatementWrites): void {
  const root = rootTransaction(trx);
  const tables = pending.get(root);
  if (tables === EVERY) return;
  if (writes === EVERY) pending.set(root, EVERY);
  else if (writes.length > 0) pending.set(root, reachedTables(writes, tables));
}

const KIND: Record<ChangeSetType, WriteKind> = {
  [ChangeSetType.CREATE]: 'insert',
  [ChangeSetType.UPDATE]: 'update',
  [ChangeSetType.UPDATE_EARLY]: 'update',
  [ChangeSetType.DELETE]: 'delete',
  [ChangeSetType.DELETE_EARLY]: 'delete',
};

/** The tables a flush writes: each change set's entity table, the pivot tables of changed many-to-many collections. */
export function flushWrites(uow: UnitOfWork): TableWrite[] {
  const writes: TableWrite[] = uow.getChangeSets().map((cs) => ({ table: cs.meta.tableName, kind: KIND[cs.type] }));
  for (const [entity, , , , type] of uow.getExtraUpdates()) writes.push({ table: helper(entity).__meta.tableName, kind: KIND[type] });
  for (const collection of uow.getCollectionUpdates()) {
    const prop = collection.property;
    const owner = prop.owner ? prop : prop.mappedBy ? prop.targetMeta?.properties[prop.mappedBy] : undefined;
    if (owner?.pivotTable) writes.push({ table: owner.pivotTable, kind: 'insert' }, { table: owner.pivotTable, kind: 'delete' });
  }
  return writes;
}

/** The subscriber of every EntityManager that moves the generations (see above). */
export const committedWrites: EventSubscriber = {
  // A flush inside a transaction: its writes are the transaction's (recorded before its
  // statements run, so a failed flush in a transaction that commits anyway is counted too).
  onFlush: ({ em, uow }) => {
    const trx = em.getTransactionContext<Knex.Transaction>();
    if (trx) writeInTransaction(trx, flushWrites(uow));
  },
  afterFlush: ({ em, uow }) => {
    const trx = em.getTransactionContext<Knex.Transaction>();
    if (trx) writeInTransaction(trx, flushWrites(uow));
  },
  afterTransactionCommit: ({ transaction, uow }) => {
    const trx = transaction as Knex.Transaction | undefined;
    if (!trx) return;
    // A flush's own transaction carries its unit of work.
    if (uow) writeInTransaction(trx, flushWrites(uow));
    const tables = pending.get(trx);
    pending.delete(trx);
    if (tables) moveTables(tables);
  },
  afterTransactionRollback: ({ transaction }) => {
    if (transaction) pending.delete(transaction as Knex.Transaction);
  },
};

/**
 * What `statementTargets` said of each text `execute` sent: the texts come from code (values are
 * `?`), so the hot reads are read once; a text with values inlined goes unremembered past the cap.
 */
const knownTexts = new Map<string, StatementWrites>();
const MAX_KNOWN_TEXTS = 256;

/** The tables a raw statement writes (none for a read); a builder is read through its SQL. */
function executeWrites(queryOrKnex: string | Knex.QueryBuilder | Knex.Raw): StatementWrites {
  let sql: string;
  try {
    sql = typeof queryOrKnex === 'string' ? queryOrKnex : queryOrKnex.toSQL().sql;
  } catch {
    return EVERY;
  }
  let writes = knownTexts.get(sql);
  if (writes === undefined) {
    writes = statementTargets(sql);
    if (knownTexts.size < MAX_KNOWN_TEXTS) knownTexts.set(sql, writes);
  }
  return writes;
}

export class AppEntityManager extends EntityManager<PostgreSqlDriver> {
  override async execute<T extends Result = EntityData<AnyEntity>[]>(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    const trx = this.getContext(false).getTransactionContext<Knex.Transaction>();
    const writes = executeWrites(queryOrKnex);
    if (writes !== EVERY && writes.length === 0) return this.send<T>(queryOrKnex, params, method, Boolean(trx), loggerContext);
    // Inside a transaction, recorded before it runs: a failed statement whose transaction still
    // commits (a caught error) is counted too.
    if (trx) {
      writeInTransaction(trx, writes);
      return this.send<T>(queryOrKnex, params, method, true, loggerContext);
    }
    try {
      return await this.send<T>(queryOrKnex, params, method, false, loggerContext);
    } finally {
      // Moved once the statement has ended, failed or not: a read that started before it then
      // stores nothing (a failed statement changed nothing; moving costs only hits).
      moveTables(writes === EVERY ? EVERY : reachedTables(writes));
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
    // Writes go through `execute`, which moves the tables' generations (the answer cache's invalidation).
    const writes = executeWrites(sql);
    if (writes === EVERY || writes.length > 0) throw new Error('executePrepared sends reads only (writes go through execute)');
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
