import { Migration } from '@mikro-orm/migrations';

export class Migration20261126133412_payment_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "payment_events" ("id" bigserial primary key, "payment_id" int not null, "status" varchar(30) not null, "amount_cents" int not null, "data" jsonb null, "created_at" timestamptz not null default now());`,
    );
    this.addSql(`create index "payment_events_payment_id_id_index" on "payment_events" ("payment_id", "id");`);

    this.addSql(
      `alter table "payment_events" add constraint "payment_events_payment_id_foreign" foreign key ("payment_id") references "payments" ("id") on update cascade on delete cascade;`,
    );
    // The payment news recorded so far on the orders' streams become the payments' history.
    this.addSql(`insert into "payment_events" ("payment_id", "status", "amount_cents", "data", "created_at")
      select p.id, e.data->>'paymentStatus', round((e.data->>'amount')::numeric * 100)::int, null, e.created_at
      from "order_events" e join "payments" p on p.id = (e.data->>'paymentId')::int
      where e.type = 'payment' order by e.id;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "payment_events" cascade;`);
  }
}
