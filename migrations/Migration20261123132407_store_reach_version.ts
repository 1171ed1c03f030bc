import { Migration } from '@mikro-orm/migrations';

/** Columns of `stores` the reach index holds (reach-index.ts); order_count is not one (it changes on every delivery). */
const REACH_COLUMNS =
  'latitude, longitude, delivery_radius_km, rating, rating_count, free_delivery, delivery_price_cents, delivery_time, category_id, timezone, is_active';

export class Migration20261123132407_store_reach_version extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "store_reach_version" ("id" int not null, "version" bigint not null, constraint "store_reach_version_pkey" primary key ("id"));`,
    );

    // Added by hand (docs/decisions.md "City scale: an exact total from an in-process reach
    // index"). Any committed change of what nearby reads sets the version to the writing
    // transaction's id: transactional (a reader sees the new version only with the new data)
    // and never repeated (a truncate of this table, as tests do, cannot bring an old value back).
    this.addSql(`create or replace function bump_store_reach_version() returns trigger
      language plpgsql
      as $fn$
      begin
        insert into store_reach_version (id, version) values (1, pg_current_xact_id()::text::bigint)
        on conflict (id) do update set version = excluded.version;
        return null;
      end
      $fn$;`);
    this.addSql(`create trigger stores_reach_version after insert or delete or truncate or update of ${REACH_COLUMNS}
      on stores for each statement execute function bump_store_reach_version();`);
    for (const table of ['store_opening_hours', 'offers']) {
      this.addSql(`create trigger ${table}_reach_version after insert or delete or truncate or update
        on ${table} for each statement execute function bump_store_reach_version();`);
    }
  }

  override async down(): Promise<void> {
    for (const table of ['stores', 'store_opening_hours', 'offers'])
      this.addSql(`drop trigger if exists ${table}_reach_version on ${table};`);
    this.addSql(`drop function if exists bump_store_reach_version();`);
    this.addSql(`drop table if exists "store_reach_version" cascade;`);
  }
}
