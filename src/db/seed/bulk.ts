/**
 * Bulk writing for the seed: multi-row `insert ... values (...), (...)` in chunks, and ids
 * taken from a table's sequence ahead of the insert, so parents and children can be written in
 * a few statements without relying on the order of `returning` rows.
 */
import { EntityManager } from '@mikro-orm/postgresql';

export type Cell = string | number | boolean | null;

/** Rows per statement (and never more than 60 000 values, under PostgreSQL's 65 535 parameters). */
const MAX_ROWS = 1000;

export async function insertRows(
  em: EntityManager,
  table: string,
  columns: string[],
  rows: Cell[][],
  suffix = '',
): Promise<Record<string, unknown>[]> {
  const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(60_000 / columns.length)));
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const returned: Record<string, unknown>[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const slice = rows.slice(start, start + perStatement);
    const params: Cell[] = [];
    for (const row of slice) for (const cell of row) params.push(cell);
    const sql = head + slice.map(() => tuple).join(', ') + (suffix ? ` ${suffix}` : '');
    const result = await em.execute(sql, params, suffix ? 'all' : 'run');
    if (suffix) returned.push(...(result as Record<string, unknown>[]));
  }
  return returned;
}

/** Sequences behind serial primary keys, by table. */
export class IdSource {
  private readonly sequences = new Map<string, string>();

  constructor(private readonly em: EntityManager) {}

  /** `count` fresh ids of `table`, in increasing order. */
  async take(table: string, count: number): Promise<number[]> {
    if (count === 0) return [];
    let sequence = this.sequences.get(table);
    if (!sequence) {
      const [row] = await this.em.execute<{ seq: string }[]>(`select pg_get_serial_sequence(?, 'id') as seq`, [table]);
      sequence = row.seq;
      this.sequences.set(table, sequence);
    }
    const rows = await this.em.execute<{ id: number }[]>(`select nextval(?::regclass)::int as id from generate_series(1, ?) order by 1`, [
      sequence,
      count,
    ]);
    return rows.map((r) => r.id);
  }
}
