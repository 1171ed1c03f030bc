import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * Counters of the shared rate limits (src/rate-limits.ts), in the layout rate-limiter-flexible's
 * PostgreSQL store reads and writes: every instance counts in the same rows.
 */
@Entity({ tableName: 'rate_limits' })
export class RateLimitCounter {
  @PrimaryKey({ length: 255 })
  key!: string;

  @Property({ default: 0 })
  points!: number;

  /** Milliseconds since the epoch when the window ends. */
  @Property({ type: 'bigint', nullable: true })
  expire?: string | null;
}
