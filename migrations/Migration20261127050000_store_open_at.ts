import { Migration } from '@mikro-orm/migrations';

/** The body of the "open now" rule (Migration20261123104026_open_hours_in_node), one copy. */
const OPEN_AT = `
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
        )`;

export class Migration20261127050000_store_open_at extends Migration {
  override async up(): Promise<void> {
    // Added by hand (no entity changes). The "open now" rule as a one-row table function: called
    // in a statement's FROM (`left join lateral store_open_at(s.id, ?) o on true`), PostgreSQL
    // inlines its body into that statement, so a prepared statement plans it once; store_is_open,
    // a scalar function whose body holds an EXISTS, is planned again on every execution of the
    // statement that calls it (checkout: 0.3 ms of PostgreSQL CPU, docs/perf/2026-11-27-checkout-2.md).
    // store_is_open now reads this function: one copy of the rule; filters over many stores keep
    // calling it (inlined per row the lateral join plans worse there).
    this.addSql(`create or replace function store_open_at(p_store_id int, p_local_times jsonb) returns table (open boolean)
      language sql stable
      as $fn$${OPEN_AT}
      $fn$;`);
    this.addSql(`create or replace function store_is_open(p_store_id int, p_local_times jsonb) returns boolean
      language sql stable
      as $fn$ select open from store_open_at(p_store_id, p_local_times) $fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create or replace function store_is_open(p_store_id int, p_local_times jsonb) returns boolean
      language sql stable
      as $fn$${OPEN_AT}
      $fn$;`);
    this.addSql(`drop function if exists store_open_at(int, jsonb);`);
  }
}
