/**
 * Which tables a raw SQL statement writes, read from its text: what the answer cache's per-table
 * invalidation needs of `em.execute` (db/table-generations.ts; docs/decisions.md "City scale:
 * the answer cache"). The reading is fail-safe: a statement it cannot account for writes
 * `EVERY` table. Triggers and foreign-key cascades are not this file's business (the tables a
 * write reaches through them are added when generations move).
 */

/** Every table: what a statement whose targets cannot be determined is taken to write. */
export const EVERY = 'every' as const;

/** How a table is written: what its triggers and the foreign keys that refer to it act on (`truncate` is a `delete`). */
export type WriteKind = 'insert' | 'update' | 'delete';
export interface TableWrite {
  table: string;
  kind: WriteKind;
}
export type StatementWrites = readonly TableWrite[] | typeof EVERY;

/** Statements that change no table's rows (reads, session and transaction control, a cursor's steps, statistics). */
const NO_WRITE =
  /^(select|values|table|show|set|reset|begin|start|commit|end|rollback|savepoint|release|declare|fetch|move|close|listen|unlisten|notify|lock|vacuum|analyze|discard|prepare|deallocate)$/;

/** A table name as written, perhaps schema-qualified and quoted: the captured part is the table's own name. */
const NAME = String.raw`(?:only\s+)?(?:"[^"]+"|\w+)(?:\s*\.\s*(?:"[^"]+"|\w+))?`;
/**
 * The statements that write, each with the name it writes. Not targets of their own: a row lock
 * (`for update`, `for no key update`), an upsert's `do update` and a merge's `then update|insert|
 * delete` (they write the statement's own target).
 */
const TARGETS = new RegExp(
  String.raw`\b(?:insert\s+into|delete\s+from|merge\s+into|(?<!\b(?:for|key|do|then)\s+)update)\s+(${NAME})`,
  'gi',
);
/** Every word that may start a write: each must be one of TARGETS' matches or of NOT_A_WRITE's. */
const WRITE_WORDS = /\b(insert|delete|merge|update)\b/gi;
const NOT_A_WRITE = /\b(?:(?:for|key|do)\s+update|then\s+(?:update|insert|delete))\b/gi;

/** `sql` without comments and literals (their text may hold any word), statements split on `;`. */
function statements(sql: string): string[] | undefined {
  // Strings ('…' with '' inside, E'…' with \' inside), dollar-quoted bodies, comments. An
  // unterminated one leaves the text unreadable: undefined.
  const stripped = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\/|[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\$(\w*)\$[\s\S]*?\$\1\$/g, ' ');
  if (/'|\$\w*\$|\/\*/.test(stripped)) return undefined;
  return stripped
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The table's own name: the last part, unquoted; unquoted names fold to lower case as PostgreSQL folds them. */
function tableName(written: string): string {
  const last = written
    .replace(/^only\s+/i, '')
    .split(/\s*\.\s*(?=(?:"[^"]+"|\w+)$)/)
    .pop()!;
  return last.startsWith('"') ? last.slice(1, -1) : last.toLowerCase();
}

/** The kinds of write each statement word makes (an upsert's `do update`, a merge's branches included). */
function kindsOf(statement: string, word: string): WriteKind[] {
  switch (word.split(/\s/)[0].toLowerCase()) {
    case 'insert':
      return /\bdo\s+update\b/i.test(statement) ? ['insert', 'update'] : ['insert'];
    case 'delete':
      return ['delete'];
    case 'merge':
      return ['insert', 'update', 'delete'];
    default:
      return ['update'];
  }
}

/** The tables `sql` writes and how (none for a read), or `EVERY` when its text does not say. */
export function statementTargets(sql: string): StatementWrites {
  const parts = statements(sql);
  if (!parts) return EVERY;
  const written: TableWrite[] = [];
  for (const statement of parts) {
    const first = /^\(*\s*(\w+)/.exec(statement)?.[1]?.toLowerCase();
    if (first === undefined) return EVERY;
    if (first === 'explain') {
      // EXPLAIN ANALYZE runs the statement: read as the statement itself.
      if (/^explain\s*(\([^)]*\banalyze\b|\s+analyze\b)/i.test(statement)) return EVERY;
      continue;
    }
    if (first === 'truncate') {
      // `cascade` empties the tables that refer to these too: not read here.
      if (/\bcascade\b/i.test(statement)) return EVERY;
      const list = statement.replace(/^truncate\s+(table\s+)?/i, '').replace(/\s+(restart|continue)\s+identity.*$|\s+restrict\s*$/i, '');
      for (const name of list.split(',')) {
        if (!new RegExp(String.raw`^\s*${NAME}\s*\*?\s*$`, 'i').test(name)) return EVERY;
        written.push({ table: tableName(name.trim().replace(/\s*\*$/, '')), kind: 'delete' });
      }
      continue;
    }
    if (first !== 'with' && first !== 'insert' && first !== 'update' && first !== 'delete' && first !== 'merge') {
      if (NO_WRITE.test(first)) continue;
      return EVERY; // DDL, copy, call, do, …: not read here.
    }
    const words = (statement.match(WRITE_WORDS) ?? []).length - (statement.match(NOT_A_WRITE) ?? []).length;
    const targets = [...statement.matchAll(TARGETS)];
    // A write word this reading did not pair with its table (a function call, a new syntax): fail safe.
    if (targets.length !== words) return EVERY;
    for (const [word, target] of targets) {
      for (const kind of kindsOf(statement, word)) written.push({ table: tableName(target), kind });
    }
  }
  return written;
}
