import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's rows are written by the statement that writes their order event, for users that
 * statement reads: the keys to the order event and to the user checked nothing that could fail, at a
 * key-share lock per row (the owner's users row, by every checkout of the store). The order's key
 * stays: it cascades an order's deletion. docs/decisions.md (Notifications), notifications-9.md.
 */
export class Migration20261127200248_outbox_fewer_foreign_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "notification_outbox" drop constraint "notification_outbox_event_id_foreign";`);
    this.addSql(`alter table "notification_outbox" drop constraint "notification_outbox_user_id_foreign";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_event_id_foreign" foreign key ("event_id") references "order_events" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }
}
