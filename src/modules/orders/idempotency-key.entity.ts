import { Entity, PrimaryKey, Property, Opt } from '@mikro-orm/core';
import { CreatedAt } from '../../common/timestamped';

/**
 * A checkout's Idempotency-Key: claimed and answered in the order's own transaction, so a retry
 * waits for the first and finds its answer, or nothing if the first failed or died.
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
