import { Migration } from '@mikro-orm/migrations';

export class Migration20261126155400_web_push_subscriptions extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "web_push_subscriptions" ("id" serial primary key, "user_id" int not null, "endpoint" varchar(1024) not null, "p256dh" varchar(100) not null, "auth" varchar(32) not null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "web_push_subscriptions_user_id_index" on "web_push_subscriptions" ("user_id");`);
    this.addSql(`alter table "web_push_subscriptions" add constraint "web_push_subscriptions_endpoint_unique" unique ("endpoint");`);

    this.addSql(
      `alter table "web_push_subscriptions" add constraint "web_push_subscriptions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "web_push_subscriptions" cascade;`);
  }
}
