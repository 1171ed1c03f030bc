import { Entity, PrimaryKey, Property, Opt } from '@mikro-orm/core';
import { CreatedAt } from '../../common/timestamped';

/**
 * A checkout's Idempotency-Key: claimed before the work, completed in the same transaction as
 * the order, so a retry finds either "still running" (409) or the first answer.
 */
@Entity({ tableName: 'idempotency_keys' })
export class IdempotencyKey {
  @PrimaryKey()
  userId!: number;

  @PrimaryKey({ length: 255 })
  key!: string;

  @Property({ length: 64 })
  requestHash!: string;

  /** The first answer, once done; null while the first request is still running. */
  @Property({ type: 'jsonb', nullable: true })
  response?: Record<string, unknown> | null;

  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
