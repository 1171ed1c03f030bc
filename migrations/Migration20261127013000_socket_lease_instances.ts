import { Migration } from '@mikro-orm/migrations';

/**
 * Socket leases renewed per instance, taken in one statement (graphql/socket-leases.ts): an
 * instance keeps one row alive (`socket_instances`), not each of its sockets' leases, and a lease
 * counts while its instance's row does. `take_socket_lease` runs the user's lock, the count and
 * the insert in the database: one round trip, its commit not waiting for the WAL's flush (a lease
 * lost in a crash only stops counting, as its instance's would). Leases without an instance are a
 * previous version's (renewed one by one): they count until their own expiry, so both versions
 * count each other's leases while a rolling deploy runs, under the same lock key.
 */
export class Migration20261127013000_socket_lease_instances extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "socket_instances" ("id" varchar(36) not null, "expires_at" timestamptz not null, constraint "socket_instances_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "socket_leases" add column "instance_id" varchar(36) null;`);
    this.addSql(`create index "socket_leases_instance_id_index" on "socket_leases" ("instance_id");`);
    this
      .addSql(`create or replace function take_socket_lease(lease_id varchar, lease_user int, lease_instance varchar, cap int, lease_seconds int)
  returns boolean language plpgsql volatile as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  -- Held until the calling statement's transaction ends; each statement below sees what the
  -- user's previous lease-taker committed (a volatile function's statements take fresh snapshots).
  -- The instance's row, if it is missing (its first lease; deleted meanwhile): its leases count while it lives.
  insert into socket_instances (id, expires_at) values (lease_instance, now() + make_interval(secs => lease_seconds)) on conflict (id) do nothing;
  perform pg_advisory_xact_lock(hashtext('socket-leases:' || lease_user));
  if (select count(*) from socket_leases l left join socket_instances i on i.id = l.instance_id
      where l.user_id = lease_user and coalesce(i.expires_at, case when l.instance_id is null then l.expires_at end) > now()) >= cap then
    return false;
  end if;
  insert into socket_leases (id, user_id, instance_id, expires_at) values (lease_id, lease_user, lease_instance, now() + make_interval(secs => lease_seconds));
  return true;
end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists take_socket_lease(varchar, int, varchar, int, int);`);
    this.addSql(`drop index "socket_leases_instance_id_index";`);
    this.addSql(`alter table "socket_leases" drop column "instance_id";`);
    this.addSql(`drop table if exists "socket_instances" cascade;`);
  }
}
