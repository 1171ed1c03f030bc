import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox is a queue: each row is updated twice (its claim, its outcome), neither a HOT update,
 * and the claim walks the (status, due_at) index past the dead entries until a vacuum removes them.
 * With 14 days of rows kept, autovacuum's default (20 % of the table dead) would let hundreds of
 * thousands pile up at a busy evening's rate: vacuum it after 1 % (docs/perf/2026-11-27-checkout-6.md).
 */
export class Migration20261127190000_outbox_autovacuum extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "notification_outbox" set (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000, autovacuum_analyze_scale_factor = 0.02);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "notification_outbox" reset (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_analyze_scale_factor);`,
    );
  }
}
