import { Migration } from '@mikro-orm/migrations';

export class Migration20261126132415_notification_preferences extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "notification_preferences" ("user_id" int not null, "push" boolean not null default true, "whatsapp" boolean not null default true, "web_push" boolean not null default true, "promotions" boolean not null default false, "quiet_start" varchar(5) null, "quiet_end" varchar(5) null, "quiet_timezone" varchar(64) null, "updated_at" timestamptz not null default now(), constraint "notification_preferences_pkey" primary key ("user_id"));`,
    );

    this.addSql(
      `alter table "notification_preferences" add constraint "notification_preferences_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "notification_preferences" cascade;`);
  }
}
