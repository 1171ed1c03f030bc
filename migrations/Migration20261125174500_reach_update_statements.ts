import { Migration } from '@mikro-orm/migrations';

/**
 * What the reach index reads of each table (REACH_ROWS_SQL in reach-index.loader.ts): as in
 * Migration20261125145518_reach_changes, whose triggers this replaces and whose list this is
 * (landed migrations are never edited). Keep in step with REACH_ROWS_SQL.
 */
const READ = {
  stores: [
    'latitude',
    'longitude',
    'delivery_radius_km',
    'rating',
    'rating_count',
    'free_delivery',
    'delivery_price_cents',
    'delivery_time',
    'category_id',
    'timezone',
    'is_active',
  ],
  store_opening_hours: ['store_id', 'day_of_week', 'opens_at', 'closes_at'],
  offers: ['store_id', 'starts_at', 'ends_at'],
};
const TABLES = Object.keys(READ) as (keyof typeof READ)[];
/** The column of each table naming the store a row is about (each table's primary key is `id`). */
const STORE_OF: Record<keyof typeof READ, string> = { stores: 'id', store_opening_hours: 'store_id', offers: 'store_id' };
/** Stores an update logs one by one; past this it logs "anything may have changed" (as inserts and deletes past 1 000 rows). */
const BULK_STORES = 1000;
const WRITER = 'pg_current_xact_id()::text::bigint';

/**
 * The stores whose read columns an update really changed, from its transition tables: the old
 * rows whose key and read columns are not among the new rows', and the reverse (EXCEPT compares
 * as `is not distinct from`; a row whose key changed counts on both sides), so an offer or an
 * hours row moved counts for its old and its new store. Set operations, not a join by key: the
 * planner has no statistics on transition tables and estimated a full join of 50 000 rows at
 * 12 500 000, which cost more in JIT compilation (0.6 s) than the join itself.
 */
function changedStores(table: keyof typeof READ): string {
  const columns = ['id', ...READ[table].filter((c) => c !== 'id')].join(', ');
  const store = STORE_OF[table];
  return `array(select distinct c.${store} from (
                  (select ${columns} from old_rows except select ${columns} from new_rows)
                  union all (select ${columns} from new_rows except select ${columns} from old_rows)) c
                where c.${store} is not null)`;
}

export class Migration20261125174500_reach_update_statements extends Migration {
  override async up(): Promise<void> {
    // Added by hand (docs/decisions.md "City scale: the reach index under store edits", review
    // item 2). Updates are logged by statement, like inserts and deletes: one insert of the
    // stores changed (a bulk update past 1 000 stores logs one row without a store) instead of
    // one row per row. PostgreSQL allows transition tables only without a column list, so the
    // trigger fires on every update and compares the read columns itself; the version moves in
    // the same function, only when a store is logged (a column set to its own value, or an
    // offer without a store, no longer moves it). Inserts, deletes and truncates move it always.
    this.addSql(`create or replace function log_store_reach_updates() returns trigger
      language plpgsql
      as $fn$
      declare
        changed int[];
      begin
        ${TABLES.map((t, i) => `${i === 0 ? 'if' : 'elsif'} TG_TABLE_NAME = '${t}' then\n          changed := ${changedStores(t)};`).join('\n        ')}
        end if;
        if cardinality(changed) = 0 then
          return null;
        end if;
        insert into store_reach_version (id, version) values (1, ${WRITER})
        on conflict (id) do update set version = excluded.version;
        if cardinality(changed) > ${BULK_STORES} then
          insert into store_reach_changes (xid, store_id) values (${WRITER}, null);
        else
          insert into store_reach_changes (xid, store_id) select ${WRITER}, s from unnest(changed) s;
        end if;
        return null;
      end
      $fn$;`);
    for (const table of TABLES) {
      this.addSql(`drop trigger ${table}_reach_version on ${table};`);
      this.addSql(`create trigger ${table}_reach_version after insert or delete or truncate
        on ${table} for each statement execute function bump_store_reach_version();`);
      this.addSql(`drop trigger ${table}_reach_updates on ${table};`);
      this.addSql(`create trigger ${table}_reach_updates after update on ${table} referencing old table as old_rows new table as new_rows
        for each statement execute function log_store_reach_updates();`);
    }
    this.addSql(`drop function log_store_reach_row();`);
  }

  override async down(): Promise<void> {
    // Migration20261125145518_reach_changes's update triggers: by row, and the version by statement on `update of`.
    this.addSql(`create or replace function log_store_reach_row() returns trigger
      language plpgsql
      as $fn$
      begin
        if TG_TABLE_NAME = 'stores' then
          insert into store_reach_changes (xid, store_id) values (${WRITER}, new.id);
        else
          insert into store_reach_changes (xid, store_id)
          select distinct ${WRITER}, v.store_id from (values (old.store_id), (new.store_id)) v(store_id) where v.store_id is not null;
        end if;
        return null;
      end
      $fn$;`);
    for (const table of TABLES) {
      const changed = READ[table].map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
      this.addSql(`drop trigger if exists ${table}_reach_updates on ${table};`);
      this.addSql(`create trigger ${table}_reach_updates after update of ${READ[table].join(', ')} on ${table}
        for each row when (${changed}) execute function log_store_reach_row();`);
      this.addSql(`drop trigger if exists ${table}_reach_version on ${table};`);
      this.addSql(`create trigger ${table}_reach_version after insert or delete or truncate or update of ${READ[table].join(', ')}
        on ${table} for each statement execute function bump_store_reach_version();`);
    }
    this.addSql(`drop function if exists log_store_reach_updates();`);
  }
}
