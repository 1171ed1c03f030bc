/**
 * The SQL statements the service sends: the ORM's knex emits one `query` event each, and the
 * read pool's (common/entity-manager.ts, executePrepared's reads) are seen at its `query`.
 */
import { Orm, readPoolOf } from '../../src/common/entity-manager';

/** Starts watching; `stop()` answers the texts of the statements sent meanwhile. */
export function watchStatements(orm: Orm): { stop(): string[] } {
  const texts: string[] = [];
  const knex = orm.em.getConnection().getKnex();
  const onQuery = (q: { sql: string }) => texts.push(q.sql);
  knex.on('query', onQuery);
  const pool = readPoolOf(orm);
  // jest's spy calls the pool's own query and records its arguments.
  const spy = pool && jest.spyOn(pool, 'query');
  let stopped = false;
  return {
    stop() {
      if (stopped) return texts;
      stopped = true;
      knex.off('query', onQuery);
      for (const [statement] of spy?.mock.calls ?? []) {
        texts.push(typeof statement === 'string' ? statement : (statement as { text: string }).text);
      }
      spy?.mockRestore();
      return texts;
    },
  };
}

export async function countStatements<T>(orm: Orm, call: () => Promise<T>): Promise<{ count: number; result: T }> {
  const watch = watchStatements(orm);
  try {
    const result = await call();
    return { result, count: watch.stop().length };
  } finally {
    watch.stop();
  }
}
