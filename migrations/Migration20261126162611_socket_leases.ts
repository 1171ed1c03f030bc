import { Migration } from '@mikro-orm/migrations';

export class Migration20261126162611_socket_leases extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "socket_leases" ("id" varchar(36) not null, "user_id" int not null, "expires_at" timestamptz not null, constraint "socket_leases_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "socket_leases_user_id_index" on "socket_leases" ("user_id");`);
    this.addSql(`create index "socket_leases_expires_at_index" on "socket_leases" ("expires_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "socket_leases" cascade;`);
  }
}
