import { Migration } from '@mikro-orm/migrations';

/**
 * Checkout now claims its Idempotency-Key inside its own transaction (no claim outlives its
 * holder). Claims the code before left unanswered belong to requests that failed or died: they
 * would refuse their key's retries for good, so they go.
 */
export class Migration20261126160000_idempotency_claims extends Migration {
  override async up(): Promise<void> {
    this.addSql(`delete from "idempotency_keys" where "response" is null;`);
  }

  override async down(): Promise<void> {
    // Nothing to restore: the deleted claims were dead.
  }
}
