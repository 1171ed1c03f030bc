/**
 * The write generation of each table: how many committed writes through this process's ORM
 * have reached it. The REST answer cache (rest/answer-cache.ts) keeps an answer while the
 * generations of the tables its row reads are unchanged (docs/decisions.md "City scale: the
 * answer cache"). What moves them, and when, is db/entity-manager.ts's; this file holds the
 * counters and what else a write reaches inside the database.
 *
 * A write to a table also writes, inside PostgreSQL, the tables its triggers write and, for a
 * delete, the rows that refer to it through a foreign key with `on delete cascade` / `set null`
 * (which may fire their own triggers). `DATABASE_EFFECTS` declares both, by kind of write;
 * test/table-generations.test.ts derives them from the catalog (pg_trigger and its functions'
 * bodies, pg_constraint) and fails when a migration adds one this map does not hold. Keys are
 * never updated (ids are identities): `on update cascade` acts on nothing and is left out.
 */
import { EVERY, TableWrite, WriteKind } from './statement-targets';

type Effects = Partial<Record<WriteKind, readonly TableWrite[]>>;
const reachVersion: TableWrite = { table: 'store_reach_version', kind: 'insert' };
const reachLog: TableWrite = { table: 'store_reach_changes', kind: 'insert' };
const reach = [reachVersion, reachLog];
const deleted = (...tables: string[]): TableWrite[] => tables.map((table) => ({ table, kind: 'delete' }));
const nulled = (...tables: string[]): TableWrite[] => tables.map((table) => ({ table, kind: 'update' }));

/** What a write of each kind to a table writes besides that table: its triggers, then its referrers' cascades. */
export const DATABASE_EFFECTS: Readonly<Record<string, Effects>> = {
  // Triggers: the reach index's version and change log (Migration20261123132407,
  // Migration20261125145518, Migration20261125174500; a truncate of the log or of the version
  // logs a row), the search names (Migration20261123133406).
  stores: {
    insert: [...reach, { table: 'store_search_names', kind: 'insert' }],
    update: [...reach, { table: 'store_search_names', kind: 'insert' }],
    delete: [...reach, ...deleted('store_opening_hours', 'offers', 'menus', 'menu_categories', 'products', 'ads', 'promo_codes')],
  },
  store_opening_hours: { insert: reach, update: reach, delete: reach },
  offers: { insert: reach, update: reach, delete: reach },
  store_reach_changes: { delete: [reachLog] },
  store_reach_version: { delete: [reachLog] },
  products: {
    insert: [{ table: 'product_search_names', kind: 'insert' }],
    update: [{ table: 'product_search_names', kind: 'insert' }],
    delete: deleted('product_supplements', 'product_option_groups', 'ads'),
  },
  // Foreign keys that delete or clear referring rows.
  users: { delete: [...deleted('user_devices', 'promo_redemptions', 'drivers', 'user_addresses'), ...nulled('stores')] },
  main_categories: { delete: nulled('store_categories') },
  store_categories: { delete: nulled('stores') },
  menus: { delete: deleted('menu_categories') },
  product_option_groups: { delete: deleted('product_option_values') },
  promo_codes: { delete: [...deleted('promo_redemptions'), ...nulled('orders')] },
  drivers: { delete: nulled('orders') },
  user_addresses: { delete: nulled('orders') },
  orders: { delete: deleted('order_items', 'order_events', 'payments') },
  order_items: { delete: deleted('order_item_extras') },
  payments: { delete: deleted('payment_events') },
};

/** The tables `writes` reach: themselves and, transitively, what DATABASE_EFFECTS says they write. */
export function reachedTables(writes: Iterable<TableWrite>, into = new Set<string>()): Set<string> {
  const seen = new Set<string>();
  const walk = (write: TableWrite): void => {
    const id = `${write.kind} ${write.table}`;
    if (seen.has(id)) return;
    seen.add(id);
    into.add(write.table);
    for (const next of DATABASE_EFFECTS[write.table]?.[write.kind] ?? []) walk(next);
  };
  for (const write of writes) walk(write);
  return into;
}

const generations = new Map<string, number>();
/** Moves with every table at once (a write whose tables are unknown). */
let everything = 0;
/** Moves with any move: what a table set's memoised sum is checked against. */
let moves = 0;

/** Moves the generation of each table in `tables` (already reached: see `reachedTables`), or of every table. */
export function moveTables(tables: ReadonlySet<string> | typeof EVERY): void {
  if (tables === EVERY) everything++;
  else if (tables.size === 0) return;
  else for (const table of tables) generations.set(table, (generations.get(table) ?? 0) + 1);
  moves++;
}

/**
 * The tables one cached row reads, and their generation: a number that changes whenever any of
 * theirs moves (a sum of counters that only grow), computed again only after some table moved.
 */
export class TableSet {
  readonly tables: readonly string[];
  private seenMoves = -1;
  private sum = 0;

  constructor(tables: Iterable<string>) {
    this.tables = [...new Set(tables)].sort();
  }

  generation(): number {
    if (this.seenMoves !== moves) {
      let sum = everything;
      for (const table of this.tables) sum += generations.get(table) ?? 0;
      this.sum = sum;
      this.seenMoves = moves;
    }
    return this.sum;
  }
}
