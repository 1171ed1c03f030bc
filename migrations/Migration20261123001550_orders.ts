import { Migration } from '@mikro-orm/migrations';

export class Migration20261123001550_orders extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("user_id" int not null, "key" varchar(255) not null, "request_hash" varchar(64) not null, "response" jsonb null, "created_at" timestamptz not null default now(), constraint "idempotency_keys_pkey" primary key ("user_id", "key"));`,
    );

    this.addSql(
      `create table "promo_codes" ("id" serial primary key, "code" varchar(50) not null, "description" varchar(255) null, "discount_type" varchar(20) not null, "percent_off" double precision null, "amount_off_cents" int null, "max_discount_cents" int null, "min_subtotal_cents" int not null default 0, "store_id" int null, "starts_at" timestamptz null, "ends_at" timestamptz null, "max_uses" int null, "max_uses_per_customer" int null default 1, "used_count" int not null default 0, "is_active" boolean not null default true);`,
    );
    this.addSql(`alter table "promo_codes" add constraint "promo_codes_code_unique" unique ("code");`);

    this.addSql(
      `create table "promo_redemptions" ("id" bigserial primary key, "promo_id" int not null, "user_id" int not null, "order_id" int not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "promo_redemptions_promo_id_user_id_index" on "promo_redemptions" ("promo_id", "user_id");`);
    this.addSql(`alter table "promo_redemptions" add constraint "promo_redemptions_order_id_unique" unique ("order_id");`);

    this.addSql(
      `create table "drivers" ("id" serial primary key, "user_id" int not null, "is_online" boolean not null default false, "latitude" double precision null, "longitude" double precision null, "location_updated_at" timestamptz null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "drivers" add constraint "drivers_user_id_unique" unique ("user_id");`);
    this.addSql(`create index "drivers_location_index" on "drivers" using gist (ll_to_earth(latitude, longitude)) where is_online;`);

    this.addSql(
      `create table "user_addresses" ("id" serial primary key, "user_id" int not null, "label" varchar(50) not null, "line1" varchar(255) not null, "line2" varchar(255) null, "city" varchar(100) null, "latitude" double precision not null, "longitude" double precision not null, "instructions" varchar(500) null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "user_addresses_user_id_index" on "user_addresses" ("user_id");`);

    this.addSql(
      `create table "orders" ("id" serial primary key, "user_id" int not null, "store_id" int not null, "address_id" int null, "status" varchar(32) not null, "subtotal_cents" int not null, "delivery_fee_cents" int not null, "discount_cents" int not null default 0, "total_cents" int not null, "promo_id" int null, "promo_code" varchar(50) null, "driver_id" int null, "rejection_reason" varchar(50) null, "rejection_note" varchar(500) null, "address_label" varchar(50) not null, "address_line1" varchar(255) not null, "address_line2" varchar(255) null, "address_city" varchar(100) null, "address_latitude" double precision not null, "address_longitude" double precision not null, "address_instructions" varchar(500) null, "last_event_seq" int not null default 0, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "orders_pending_index" on "orders" ("created_at") where status = 'pending_acceptance';`);
    this.addSql(`create index "orders_driver_id_status_index" on "orders" ("driver_id", "status");`);
    this.addSql(`create index "orders_store_id_status_index" on "orders" ("store_id", "status");`);
    this.addSql(`create index "orders_user_id_created_at_index" on "orders" ("user_id", "created_at");`);

    this.addSql(
      `create table "order_items" ("id" serial primary key, "order_id" int not null, "product_id" int null, "product_name" varchar(200) not null, "quantity" int not null, "base_price_cents" int not null, "unit_price_cents" int not null, "total_price_cents" int not null, "special_instructions" varchar(500) null);`,
    );
    this.addSql(`create index "order_items_order_id_index" on "order_items" ("order_id");`);

    this.addSql(
      `create table "order_item_extras" ("row_id" serial primary key, "item_id" int not null, "kind" varchar(20) not null, "id" int not null, "name" varchar(150) not null, "price_cents" int not null);`,
    );
    this.addSql(`create index "order_item_extras_item_id_index" on "order_item_extras" ("item_id");`);

    this.addSql(
      `create table "order_events" ("id" bigserial primary key, "order_id" int not null, "seq" int not null, "type" varchar(20) not null, "status" varchar(32) not null, "data" jsonb null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "order_events_created_at_index" on "order_events" ("created_at");`);
    this.addSql(`alter table "order_events" add constraint "order_events_order_id_seq_unique" unique ("order_id", "seq");`);

    this.addSql(
      `alter table "promo_codes" add constraint "promo_codes_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "promo_redemptions" add constraint "promo_redemptions_promo_id_foreign" foreign key ("promo_id") references "promo_codes" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "promo_redemptions" add constraint "promo_redemptions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "drivers" add constraint "drivers_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "user_addresses" add constraint "user_addresses_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "orders" add constraint "orders_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete restrict;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete restrict;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_address_id_foreign" foreign key ("address_id") references "user_addresses" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_promo_id_foreign" foreign key ("promo_id") references "promo_codes" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "orders" add constraint "orders_driver_id_foreign" foreign key ("driver_id") references "drivers" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "order_items" add constraint "order_items_order_id_foreign" foreign key ("order_id") references "orders" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "order_item_extras" add constraint "order_item_extras_item_id_foreign" foreign key ("item_id") references "order_items" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "order_events" add constraint "order_events_order_id_foreign" foreign key ("order_id") references "orders" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "promo_redemptions" drop constraint "promo_redemptions_promo_id_foreign";`);

    this.addSql(`alter table "orders" drop constraint "orders_promo_id_foreign";`);

    this.addSql(`alter table "orders" drop constraint "orders_driver_id_foreign";`);

    this.addSql(`alter table "orders" drop constraint "orders_address_id_foreign";`);

    this.addSql(`alter table "order_items" drop constraint "order_items_order_id_foreign";`);

    this.addSql(`alter table "order_events" drop constraint "order_events_order_id_foreign";`);

    this.addSql(`alter table "order_item_extras" drop constraint "order_item_extras_item_id_foreign";`);

    this.addSql(`drop table if exists "idempotency_keys" cascade;`);

    this.addSql(`drop table if exists "promo_codes" cascade;`);

    this.addSql(`drop table if exists "promo_redemptions" cascade;`);

    this.addSql(`drop table if exists "drivers" cascade;`);

    this.addSql(`drop table if exists "user_addresses" cascade;`);

    this.addSql(`drop table if exists "orders" cascade;`);

    this.addSql(`drop table if exists "order_items" cascade;`);

    this.addSql(`drop table if exists "order_item_extras" cascade;`);

    this.addSql(`drop table if exists "order_events" cascade;`);
  }
}
