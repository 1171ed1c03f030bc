import { Migration } from '@mikro-orm/migrations';

export class Migration20261123110000_payments extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "payment_methods" ("id" serial primary key, "code" varchar(30) not null, "name" varchar(100) not null, "kind" varchar(20) not null, "provider" varchar(30) not null, "icon" text null, "is_active" boolean not null default true, "sort_order" int not null default 0);`,
    );
    this.addSql(`alter table "payment_methods" add constraint "payment_methods_code_unique" unique ("code");`);

    this.addSql(
      `create table "payment_webhook_events" ("provider" varchar(30) not null, "event_id" varchar(255) not null, "type" varchar(100) not null, "outcome" varchar(20) not null, "payment_id" int null, "received_at" timestamptz not null default now(), constraint "payment_webhook_events_pkey" primary key ("provider", "event_id"));`,
    );

    this.addSql(
      `create table "payments" ("id" serial primary key, "order_id" int not null, "method_id" int not null, "provider" varchar(30) not null, "status" varchar(30) not null, "amount_cents" int not null, "currency" varchar(3) not null, "provider_ref" varchar(255) null, "client_secret" varchar(255) null, "amount_captured_cents" int not null default 0, "amount_refunded_cents" int not null default 0, "failure_code" varchar(100) null, "failure_message" varchar(500) null, "capture_requested_at" timestamptz null, "release_requested_at" timestamptz null, "settle_attempts" int not null default 0, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now());`,
    );
    this.addSql(`alter table "payments" add constraint "payments_provider_ref_unique" unique ("provider_ref");`);
    this.addSql(
      `create index "payments_unsettled_index" on "payments" ("updated_at") where status in ('pending', 'requires_action', 'authorized', 'capture_failed') or capture_requested_at is not null or release_requested_at is not null;`,
    );
    this.addSql(
      `create unique index "payments_live_per_order" on "payments" ("order_id") where status in ('pending', 'requires_action', 'authorized');`,
    );
    this.addSql(`create index "payments_order_id_index" on "payments" ("order_id");`);

    this.addSql(
      `alter table "payments" add constraint "payments_order_id_foreign" foreign key ("order_id") references "orders" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "payments" add constraint "payments_method_id_foreign" foreign key ("method_id") references "payment_methods" ("id") on update cascade on delete restrict;`,
    );

    // The platform's methods (reference data, written by hand): card is listed only when Stripe is configured.
    this.addSql(
      `insert into "payment_methods" ("code", "name", "kind", "provider", "icon", "sort_order") values ('card', 'Credit or debit card', 'card', 'stripe', 'credit-card', 1), ('cash', 'Cash on delivery', 'cash', 'cash', 'banknote', 2);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "payments" drop constraint "payments_method_id_foreign";`);

    this.addSql(`drop table if exists "payment_methods" cascade;`);

    this.addSql(`drop table if exists "payment_webhook_events" cascade;`);

    this.addSql(`drop table if exists "payments" cascade;`);
  }
}
