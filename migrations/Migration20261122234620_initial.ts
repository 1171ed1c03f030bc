import { Migration } from '@mikro-orm/migrations';

export class Migration20261122234620_initial extends Migration {
  override async up(): Promise<void> {
    // Added by hand: geo search (cube + earthdistance) and fuzzy text search (pg_trgm).
    this.addSql(`create extension if not exists cube;`);
    this.addSql(`create extension if not exists earthdistance;`);
    this.addSql(`create extension if not exists pg_trgm;`);

    this.addSql(
      `create table "otp_codes" ("phone_number" varchar(16) not null, "code_hash" varchar(64) not null, "expires_at" timestamptz not null, "attempts" int not null default 0, "created_at" timestamptz not null default now(), constraint "otp_codes_pkey" primary key ("phone_number"));`,
    );

    this.addSql(
      `create table "otp_sends" ("id" bigserial primary key, "phone_number" varchar(16) not null, "ip" varchar(45) not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "otp_sends_ip_created_at_index" on "otp_sends" ("ip", "created_at");`);
    this.addSql(`create index "otp_sends_phone_number_created_at_index" on "otp_sends" ("phone_number", "created_at");`);

    this.addSql(
      `create table "phone_verifications" ("phone_number" varchar(16) not null, "expires_at" timestamptz not null, constraint "phone_verifications_pkey" primary key ("phone_number"));`,
    );

    this.addSql(
      `create table "revoked_tokens" ("jti" uuid not null, "expires_at" timestamptz not null, constraint "revoked_tokens_pkey" primary key ("jti"));`,
    );
    this.addSql(`create index "revoked_tokens_expires_at_index" on "revoked_tokens" ("expires_at");`);

    this.addSql(
      `create table "users" ("id" serial primary key, "phone_number" varchar(16) not null, "first_name" varchar(100) not null, "last_name" varchar(100) not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "users" add constraint "users_phone_number_unique" unique ("phone_number");`);

    this.addSql(
      `create table "user_devices" ("id" serial primary key, "user_id" int not null, "device_id" varchar(255) not null, "push_token" text null, "last_seen_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "user_devices" add constraint "user_devices_user_id_device_id_unique" unique ("user_id", "device_id");`);

    this.addSql(
      `alter table "user_devices" add constraint "user_devices_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "user_devices" drop constraint "user_devices_user_id_foreign";`);

    this.addSql(`drop table if exists "otp_codes" cascade;`);

    this.addSql(`drop table if exists "otp_sends" cascade;`);

    this.addSql(`drop table if exists "phone_verifications" cascade;`);

    this.addSql(`drop table if exists "revoked_tokens" cascade;`);

    this.addSql(`drop table if exists "users" cascade;`);

    this.addSql(`drop table if exists "user_devices" cascade;`);
  }
}
