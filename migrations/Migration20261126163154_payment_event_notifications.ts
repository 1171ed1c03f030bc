import { Migration } from '@mikro-orm/migrations';

export class Migration20261126163154_payment_event_notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "notification_outbox" add column "payment_event_id" bigint null;`);
    this.addSql(`alter table "notification_outbox" alter column "event_id" drop not null;`);
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_payment_event_id_foreign" foreign key ("payment_event_id") references "payment_events" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_payment_event_id_kind_channel_target_unique" unique ("payment_event_id", "kind", "channel", "target");`,
    );
    this.addSql(
      `alter table "notification_outbox" add constraint notification_outbox_one_source check((event_id is null) <> (payment_event_id is null));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "notification_outbox" drop constraint "notification_outbox_payment_event_id_foreign";`);

    this.addSql(`alter table "notification_outbox" drop constraint "notification_outbox_payment_event_id_kind_channel_target_unique";`);
    this.addSql(`alter table "notification_outbox" drop constraint notification_outbox_one_source;`);
    this.addSql(`alter table "notification_outbox" drop column "payment_event_id";`);

    this.addSql(`alter table "notification_outbox" alter column "event_id" set not null;`);
  }
}
