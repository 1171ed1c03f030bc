import { Migration } from '@mikro-orm/migrations';

/**
 * What the reach index reads of each table (REACH_ROWS_SQL in reach-index.loader.ts): a change
 * of any other column (an offer's title, a store's order_count) neither moves the version nor
 * is logged. Keep in step with REACH_ROWS_SQL.
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
/** Rows an insert or delete logs one by one; a bulk one (a seed, an import) logs "anything may have changed". */
const BULK_ROWS = 1000;
const WRITER = 'pg_current_xact_id()::text::bigint';

export class Migration20261125145518_reach_changes extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "store_reach_changes" ("id" bigserial primary key, "xid" bigint not null, "store_id" int null, "at" timestamptz not null default now());`,
    );
    this.addSql(`create index "store_reach_changes_xid_index" on "store_reach_changes" ("xid");`);

    this.addSql(`alter table "store_reach_version" add column "log_pruned_below" bigint not null default 0;`);

    // Added by hand (docs/decisions.md "City scale: the reach index under store edits").
    // 1. The version moves only on a change of what the index reads: an offer's title edit
    //    no longer sends every instance's index back to a rebuild.
    for (const table of ['store_opening_hours', 'offers'] as const) {
      this.addSql(`drop trigger if exists ${table}_reach_version on ${table};`);
      this.addSql(`create trigger ${table}_reach_version after insert or delete or truncate or update of ${READ[table].join(', ')}
        on ${table} for each statement execute function bump_store_reach_version();`);
    }
    // 2. The change log, written in the same transaction as the version: inserts and deletes
    //    by statement from their transition tables (one insert per statement, however many
    //    rows), updates by row only when a read column really changed, truncates as a row
    //    without a store ("anything may have changed"; a truncate of the log itself, or of the
    //    version row that holds its pruning horizon, too).
    this.addSql(`create or replace function log_store_reach_rows() returns trigger
      language plpgsql
      as $fn$
      begin
        if (select count(*) from changed_rows) > ${BULK_ROWS} then
          insert into store_reach_changes (xid, store_id) values (${WRITER}, null);
        elsif TG_TABLE_NAME = 'stores' then
          insert into store_reach_changes (xid, store_id) select distinct ${WRITER}, c.id from changed_rows c;
        else
          insert into store_reach_changes (xid, store_id) select distinct ${WRITER}, c.store_id from changed_rows c where c.store_id is not null;
        end if;
        return null;
      end
      $fn$;`);
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
    this.addSql(`create or replace function log_store_reach_truncate() returns trigger
      language plpgsql
      as $fn$
      begin
        insert into store_reach_changes (xid, store_id) values (${WRITER}, null);
        return null;
      end
      $fn$;`);
    for (const table of TABLES) {
      const changed = READ[table].map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
      this.addSql(`create trigger ${table}_reach_inserts after insert on ${table} referencing new table as changed_rows
        for each statement execute function log_store_reach_rows();`);
      this.addSql(`create trigger ${table}_reach_deletes after delete on ${table} referencing old table as changed_rows
        for each statement execute function log_store_reach_rows();`);
      this.addSql(`create trigger ${table}_reach_updates after update of ${READ[table].join(', ')} on ${table}
        for each row when (${changed}) execute function log_store_reach_row();`);
    }
    for (const table of [...TABLES, 'store_reach_changes', 'store_reach_version']) {
      this.addSql(
        `create trigger ${table}_reach_truncate after truncate on ${table} for each statement execute function log_store_reach_truncate();`,
      );
    }
  }

  override async down(): Promise<void> {
    for (const table of [...TABLES, 'store_reach_changes', 'store_reach_version']) {
      this.addSql(`drop trigger if exists ${table}_reach_truncate on ${table};`);
    }
    for (const table of TABLES) {
      for (const t of ['inserts', 'deletes', 'updates']) this.addSql(`drop trigger if exists ${table}_reach_${t} on ${table};`);
    }
    for (const fn of ['log_store_reach_rows', 'log_store_reach_row', 'log_store_reach_truncate'])
      this.addSql(`drop function if exists ${fn}();`);
    for (const table of ['store_opening_hours', 'offers']) {
      this.addSql(`drop trigger if exists ${table}_reach_version on ${table};`);
      this.addSql(`create trigger ${table}_reach_version after insert or delete or truncate or update
        on ${table} for each statement execute function bump_store_reach_version();`);
    }

    this.addSql(`drop table if exists "store_reach_changes" cascade;`);

    this.addSql(`alter table "store_reach_version" drop column "log_pruned_below";`);
  }
}
