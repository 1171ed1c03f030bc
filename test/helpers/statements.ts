/** Counts the SQL statements a call sends (the ORM's knex emits one `query` event each). */
import type { Orm } from '../../src/common/entity-manager';

export async function countStatements<T>(orm: Orm, call: () => Promise<T>): Promise<{ count: number; result: T }> {
  let count = 0;
  const knex = orm.em.getConnection().getKnex();
  const onQuery = () => count++;
  knex.on('query', onQuery);
  try {
    return { result: await call(), count };
  } finally {
    knex.off('query', onQuery);
  }
}
