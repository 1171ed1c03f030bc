import { Migration } from '@mikro-orm/migrations';

/**
 * A claim's lease in a column of its own, in no index: the claim (lease and attempts) is then a HOT
 * update, which adds no index entry, when its row's page has room for the new version. Half of
 * each page is kept for it (fillfactor 50; set here, as the autovacuum settings: the entity does not
 * hold a table's storage parameters). docs/perf/2026-11-27-notifications-9.md.
 */
export class Migration20261127200147_outbox_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "notification_outbox" add column "leased_until" timestamptz null;`);
    this.addSql(`alter table "notification_outbox" set (fillfactor = 50);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "notification_outbox" reset (fillfactor);`);
    this.addSql(`alter table "notification_outbox" drop column "leased_until";`);
  }
}
