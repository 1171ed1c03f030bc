import { Migration } from '@mikro-orm/migrations';

export class Migration20261126142713_notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "notification_preferences" ("user_id" int not null, "push" boolean not null default true, "whatsapp" boolean not null default true, "web_push" boolean not null default true, "promotions" boolean not null default false, "quiet_start" varchar(5) null, "quiet_end" varchar(5) null, "quiet_timezone" varchar(64) null, "updated_at" timestamptz not null default now(), constraint "notification_preferences_pkey" primary key ("user_id"));`,
    );

    this.addSql(
      `create table "notification_outbox" ("id" bigserial primary key, "event_id" bigint not null, "order_id" int not null, "kind" varchar(32) not null, "user_id" int not null, "channel" varchar(16) not null, "target" varchar(64) not null, "status" varchar(16) not null default 'pending', "attempts" int not null default 0, "due_at" timestamptz not null default now(), "last_error" text null, "sent_at" timestamptz null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "notification_outbox_order_id_index" on "notification_outbox" ("order_id");`);
    this.addSql(`create index "notification_outbox_status_due_at_index" on "notification_outbox" ("status", "due_at");`);
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_event_id_kind_channel_target_unique" unique ("event_id", "kind", "channel", "target");`,
    );

    this.addSql(
      `alter table "notification_preferences" add constraint "notification_preferences_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_event_id_foreign" foreign key ("event_id") references "order_events" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_order_id_foreign" foreign key ("order_id") references "orders" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(`alter table "user_devices" add column "locale" varchar(8) null, add column "token_id" varchar(64) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "notification_preferences" cascade;`);

    this.addSql(`drop table if exists "notification_outbox" cascade;`);

    this.addSql(`alter table "user_devices" drop column "locale", drop column "token_id";`);
  }
}
