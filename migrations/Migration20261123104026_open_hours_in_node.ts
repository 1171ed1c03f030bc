import { Migration } from '@mikro-orm/migrations';

export class Migration20261123104026_open_hours_in_node extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "stores_timezone_index" on "stores" ("timezone");`);

    // Added by hand. "Open now" no longer reads the database's tz tables (`at time zone`):
    // Node computes each zone's wall-clock time with ICU and passes the map
    // { zone: 'YYYY-MM-DDTHH:MM:SS' } (src/modules/stores/local-time.ts). A period whose
    // closing time is at or before its opening time runs past midnight. A zone missing from
    // the map reads as closed.
    this.addSql(`drop function if exists store_is_open(int, timestamptz);`);
    this.addSql(`create or replace function store_is_open(p_store_id int, p_local_times jsonb) returns boolean
      language sql stable
      as $fn$
        select exists (
          select 1
          from stores s
          join store_opening_hours h on h.store_id = s.id
          cross join lateral (select (p_local_times ->> s.timezone)::timestamp as at_local) l
          where s.id = p_store_id and (
            (h.day_of_week = extract(dow from l.at_local)::int
              and l.at_local::time >= h.opens_at
              and (h.closes_at <= h.opens_at or l.at_local::time < h.closes_at))
            or (h.day_of_week = (extract(dow from l.at_local)::int + 6) % 7
              and h.closes_at <= h.opens_at
              and l.at_local::time < h.closes_at)
          )
        )
      $fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists store_is_open(int, jsonb);`);
    this.addSql(`create or replace function store_is_open(p_store_id int, p_at timestamptz default now()) returns boolean
      language sql stable
      as $fn$
        select exists (
          select 1
          from stores s
          join store_opening_hours h on h.store_id = s.id
          cross join lateral (select (p_at at time zone s.timezone) as at_local) l
          where s.id = p_store_id and (
            (h.day_of_week = extract(dow from l.at_local)::int
              and l.at_local::time >= h.opens_at
              and (h.closes_at <= h.opens_at or l.at_local::time < h.closes_at))
            or (h.day_of_week = (extract(dow from l.at_local)::int + 6) % 7
              and h.closes_at <= h.opens_at
              and l.at_local::time < h.closes_at)
          )
        )
      $fn$;`);
    this.addSql(`drop index "stores_timezone_index";`);
  }
}
