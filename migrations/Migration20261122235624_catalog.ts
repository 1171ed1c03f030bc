import { Migration } from '@mikro-orm/migrations';

export class Migration20261122235624_catalog extends Migration {
  override async up(): Promise<void> {
    // Added by hand, before the indexes that use it.
    // Accent- and case-folded text for trigram search ("Crème" finds "creme"). unaccent()
    // itself is only STABLE; the two-argument form with a fixed dictionary is immutable.
    this.addSql(`create extension if not exists unaccent;`);
    this.addSql(`create or replace function search_text(value text) returns text
      language sql immutable parallel safe strict
      as $fn$ select lower(public.unaccent('public.unaccent'::regdictionary, value)) $fn$;`);

    this.addSql(
      `create table "main_categories" ("id" serial primary key, "name" varchar(100) not null, "icon" varchar(100) null, "image" varchar(500) not null, "sort_order" int not null default 0);`,
    );

    this.addSql(
      `create table "store_categories" ("id" serial primary key, "name" varchar(100) not null, "icon" varchar(100) null, "image" varchar(500) null, "main_category_id" int null, "sort_order" int not null default 0);`,
    );

    this.addSql(
      `create table "stores" ("id" serial primary key, "owner_id" int null, "category_id" int null, "name" varchar(150) not null, "slug" varchar(160) not null, "description" text null, "logo" varchar(500) null, "image" varchar(500) null, "address" varchar(300) not null, "latitude" double precision not null, "longitude" double precision not null, "delivery_radius_km" double precision not null, "delivery_price_cents" int not null, "free_delivery" boolean not null default false, "delivery_time" int not null, "rating" double precision not null default 0, "rating_count" int not null default 0, "order_count" int not null default 0, "timezone" varchar(64) not null, "is_active" boolean not null default true, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "stores_owner_id_index" on "stores" ("owner_id");`);
    this.addSql(`create index "stores_category_id_index" on "stores" ("category_id");`);
    this.addSql(`alter table "stores" add constraint "stores_slug_unique" unique ("slug");`);
    this.addSql(`create index "stores_name_trgm_index" on "stores" using gin (search_text(name) gin_trgm_ops);`);
    this.addSql(`create index "stores_location_index" on "stores" using gist (ll_to_earth(latitude, longitude));`);

    this.addSql(
      `create table "store_opening_hours" ("id" serial primary key, "store_id" int not null, "day_of_week" smallint not null, "opens_at" time(0) not null, "closes_at" time(0) not null);`,
    );
    this.addSql(`create index "store_opening_hours_store_id_day_of_week_index" on "store_opening_hours" ("store_id", "day_of_week");`);

    this.addSql(
      `create table "offers" ("id" serial primary key, "store_id" int null, "title" varchar(150) not null, "description" text null, "discount" double precision not null, "token" varchar(32) not null, "image" varchar(500) null, "starts_at" timestamptz null, "ends_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "offers" add constraint "offers_token_unique" unique ("token");`);
    this.addSql(`create index "offers_store_id_ends_at_index" on "offers" ("store_id", "ends_at");`);

    this.addSql(
      `create table "menus" ("id" serial primary key, "store_id" int not null, "name" varchar(150) not null, "description" text null, "is_active" boolean not null default true, "sort_order" int not null default 0);`,
    );
    this.addSql(`create index "menus_store_id_index" on "menus" ("store_id");`);

    this.addSql(
      `create table "menu_categories" ("id" serial primary key, "store_id" int not null, "menu_id" int null, "name" varchar(150) not null, "sort_order" int not null default 0);`,
    );
    this.addSql(`create index "menu_categories_store_id_index" on "menu_categories" ("store_id");`);
    this.addSql(`create index "menu_categories_menu_id_index" on "menu_categories" ("menu_id");`);

    this.addSql(
      `create table "products" ("id" serial primary key, "store_id" int not null, "menu_category_id" int null, "name" varchar(200) not null, "description" text null, "price_cents" int not null, "image" varchar(500) null, "is_featured" boolean not null default false, "is_active" boolean not null default true, "sort_order" int not null default 0, "order_count" int not null default 0);`,
    );
    this.addSql(`create index "products_store_id_index" on "products" ("store_id");`);
    this.addSql(`create index "products_menu_category_id_index" on "products" ("menu_category_id");`);
    this.addSql(`create index "products_name_trgm_index" on "products" using gin (search_text(name) gin_trgm_ops);`);

    this.addSql(
      `create table "product_supplements" ("id" serial primary key, "product_id" int not null, "name" varchar(150) not null, "price_cents" int not null default 0, "sort_order" int not null default 0);`,
    );
    this.addSql(`create index "product_supplements_product_id_index" on "product_supplements" ("product_id");`);

    this.addSql(
      `create table "product_option_groups" ("id" serial primary key, "product_id" int not null, "name" varchar(150) not null, "is_required" boolean not null default false, "min_select" int not null default 0, "max_select" int not null default 1, "sort_order" int not null default 0);`,
    );
    this.addSql(`create index "product_option_groups_product_id_index" on "product_option_groups" ("product_id");`);

    this.addSql(
      `create table "product_option_values" ("id" serial primary key, "group_id" int not null, "name" varchar(150) not null, "price_cents" int not null default 0, "sort_order" int not null default 0);`,
    );
    this.addSql(`create index "product_option_values_group_id_index" on "product_option_values" ("group_id");`);

    this.addSql(
      `create table "ads" ("id" serial primary key, "title" varchar(150) not null, "type" varchar(30) not null default 'image', "image" varchar(500) not null, "redirect_type" varchar(30) not null default 'none', "store_id" int null, "product_id" int null, "sort_order" int not null default 0, "is_active" boolean not null default true, "starts_at" timestamptz null, "ends_at" timestamptz null);`,
    );
    this.addSql(`create index "ads_is_active_sort_order_index" on "ads" ("is_active", "sort_order");`);

    this.addSql(
      `alter table "store_categories" add constraint "store_categories_main_category_id_foreign" foreign key ("main_category_id") references "main_categories" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "stores" add constraint "stores_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "stores" add constraint "stores_category_id_foreign" foreign key ("category_id") references "store_categories" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "store_opening_hours" add constraint "store_opening_hours_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "offers" add constraint "offers_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "menus" add constraint "menus_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "menu_categories" add constraint "menu_categories_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "menu_categories" add constraint "menu_categories_menu_id_foreign" foreign key ("menu_id") references "menus" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "products" add constraint "products_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "products" add constraint "products_menu_category_id_foreign" foreign key ("menu_category_id") references "menu_categories" ("id") on update cascade on delete no action;`,
    );

    this.addSql(
      `alter table "product_supplements" add constraint "product_supplements_product_id_foreign" foreign key ("product_id") references "products" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "product_option_groups" add constraint "product_option_groups_product_id_foreign" foreign key ("product_id") references "products" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "product_option_values" add constraint "product_option_values_group_id_foreign" foreign key ("group_id") references "product_option_groups" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "ads" add constraint "ads_store_id_foreign" foreign key ("store_id") references "stores" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "ads" add constraint "ads_product_id_foreign" foreign key ("product_id") references "products" ("id") on update cascade on delete cascade;`,
    );

    // Added by hand (SQL functions are checked against the tables at creation).
    // Whether a store is open at an instant, from its weekly hours in its own time zone. A
    // period whose closing time is at or before its opening time runs past midnight.
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
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists store_is_open(int, timestamptz);`);
    this.addSql(`alter table "store_categories" drop constraint "store_categories_main_category_id_foreign";`);

    this.addSql(`alter table "stores" drop constraint "stores_category_id_foreign";`);

    this.addSql(`alter table "store_opening_hours" drop constraint "store_opening_hours_store_id_foreign";`);

    this.addSql(`alter table "offers" drop constraint "offers_store_id_foreign";`);

    this.addSql(`alter table "menus" drop constraint "menus_store_id_foreign";`);

    this.addSql(`alter table "menu_categories" drop constraint "menu_categories_store_id_foreign";`);

    this.addSql(`alter table "products" drop constraint "products_store_id_foreign";`);

    this.addSql(`alter table "ads" drop constraint "ads_store_id_foreign";`);

    this.addSql(`alter table "menu_categories" drop constraint "menu_categories_menu_id_foreign";`);

    this.addSql(`alter table "products" drop constraint "products_menu_category_id_foreign";`);

    this.addSql(`alter table "product_supplements" drop constraint "product_supplements_product_id_foreign";`);

    this.addSql(`alter table "product_option_groups" drop constraint "product_option_groups_product_id_foreign";`);

    this.addSql(`alter table "ads" drop constraint "ads_product_id_foreign";`);

    this.addSql(`alter table "product_option_values" drop constraint "product_option_values_group_id_foreign";`);

    this.addSql(`drop table if exists "main_categories" cascade;`);

    this.addSql(`drop table if exists "store_categories" cascade;`);

    this.addSql(`drop table if exists "stores" cascade;`);

    this.addSql(`drop table if exists "store_opening_hours" cascade;`);

    this.addSql(`drop table if exists "offers" cascade;`);

    this.addSql(`drop table if exists "menus" cascade;`);

    this.addSql(`drop table if exists "menu_categories" cascade;`);

    this.addSql(`drop table if exists "products" cascade;`);

    this.addSql(`drop table if exists "product_supplements" cascade;`);

    this.addSql(`drop table if exists "product_option_groups" cascade;`);

    this.addSql(`drop table if exists "product_option_values" cascade;`);

    this.addSql(`drop table if exists "ads" cascade;`);
    this.addSql(`drop function if exists search_text(text);`);
  }
}
