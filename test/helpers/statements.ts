/**
 * The SQL statements the service sends: the ORM's knex emits one `query` event each, and the
 * read pool's (common/entity-manager.ts: executePrepared's statements) are seen at
 * the `query` of each of its connections as the pool hands it out. Listed in the order sent.
 */
import type { PoolClient } from 'pg';
import { Orm, readPoolOf } from '../../src/common/entity-manager';

/** Starts watching; `stop()` answers the texts of the statements sent meanwhile. */
export function watchStatements(orm: Orm): { stop(): string[] } {
  const texts: string[] = [];
  const knex = orm.em.getConnection().getKnex();
  const onQuery = (q: { sql: string }) => texts.push(q.sql);
  knex.on('query', onQuery);
  const pool = readPoolOf(orm);
  // jest's spies call each connection's own query and record its text as it is sent.
  const spies = new Map<PoolClient, jest.SpyInstance>();
  const onAcquire = (client: PoolClient) => {
    if (spies.has(client)) return;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const spy = jest.spyOn(client, 'query') as unknown as jest.SpyInstance;
    spy.mockImplementation((...args: unknown[]) => {
      const [statement] = args;
      texts.push(typeof statement === 'string' ? statement : (statement as { text: string }).text);
      return query(...args);
    });
    spies.set(client, spy);
  };
  pool?.on('acquire', onAcquire);
  let stopped = false;
  return {
    stop() {
      if (stopped) return texts;
      stopped = true;
      knex.off('query', onQuery);
      pool?.off('acquire', onAcquire);
      for (const spy of spies.values()) spy.mockRestore();
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
