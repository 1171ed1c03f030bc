import { Migration } from '@mikro-orm/migrations';

/**
 * Each outbox row is written three times (its insert, its claim, its outcome) and each write added an
 * entry to every index. The claim's index holds only the pending rows now (a row recorded sent,
 * failed or skipped adds none), and each unique key only the rows of its own source (a row has
 * an order event or a payment event, never both): docs/perf/2026-11-27-notifications-9.md.
 */
export class Migration20261127200117_outbox_partial_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "notification_outbox" drop constraint "notification_outbox_event_id_kind_channel_target_unique";`);
    this.addSql(`alter table "notification_outbox" drop constraint "notification_outbox_payment_event_id_kind_channel_target_unique";`);
    this.addSql(`drop index "notification_outbox_status_due_at_index";`);

    this.addSql(`create index "notification_outbox_pending_index" on "notification_outbox" ("due_at") where status = 'pending';`);
    this.addSql(
      `create unique index "notification_outbox_payment_event_unique" on "notification_outbox" ("payment_event_id", "kind", "channel", "target") where payment_event_id is not null;`,
    );
    this.addSql(
      `create unique index "notification_outbox_event_unique" on "notification_outbox" ("event_id", "kind", "channel", "target") where event_id is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "notification_outbox_pending_index";`);
    this.addSql(`drop index "notification_outbox_payment_event_unique";`);
    this.addSql(`drop index "notification_outbox_event_unique";`);

    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_event_id_kind_channel_target_unique" unique ("event_id", "kind", "channel", "target");`,
    );
    this.addSql(
      `alter table "notification_outbox" add constraint "notification_outbox_payment_event_id_kind_channel_target_unique" unique ("payment_event_id", "kind", "channel", "target");`,
    );
    this.addSql(`create index "notification_outbox_status_due_at_index" on "notification_outbox" ("status", "due_at");`);
  }
}
