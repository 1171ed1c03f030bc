/**
 * Rate limits shared by every instance: counters live in PostgreSQL (the `rate_limits` table,
 * rate-limiter-flexible's PostgreSQL store over the ORM's pool), so a limit holds whichever
 * instance a request reaches. Each rule counts per customer and per client IP.
 */
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimited } from './common/errors';
import { Config } from './config';
import type { Orm } from './db/orm';

export interface RateLimit {
  /** Counts one attempt for the caller; 429 (with Retry-After) past either budget. */
  consume(who: Caller): Promise<void>;
  /** 429 when the caller has already used a budget up; counts nothing. */
  check(who: Caller): Promise<void>;
  /** Counts one attempt without refusing (a failure that makes the next attempt cost more). */
  penalize(who: Caller): Promise<void>;
}

export interface Caller {
  userId: number;
  ip: string;
}

export interface RateLimits {
  /** Order placements (checkout). */
  orders: RateLimit;
  /** Checkouts whose promo code was refused: guessing codes. */
  promoFailures: RateLimit;
}

export function createRateLimits(orm: Orm, config: Config['rateLimits']): RateLimits {
  const knex = orm.em.getConnection().getKnex();
  const limiter = (keyPrefix: string, points: number, duration: number) =>
    new RateLimiterPostgres({
      storeClient: knex,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true, // by the migrations
      clearExpiredByTimeout: false, // purged hourly with the other short-lived rows
      keyPrefix,
      points,
      duration,
    });
  const rule = (perCustomer: RateLimiterPostgres, perIp: RateLimiterPostgres, message: string): RateLimit => {
    const keys = (who: Caller) => [
      [perCustomer, `user:${who.userId}`],
      [perIp, `ip:${who.ip}`],
    ] as const;
    const refuse = (res: RateLimiterRes) => rateLimited(message, Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
    return {
      async consume(who) {
        for (const [limit, key] of keys(who)) {
          try {
            await limit.consume(key);
          } catch (error) {
            if (error instanceof RateLimiterRes) throw refuse(error);
            throw error;
          }
        }
      },
      async check(who) {
        for (const [limit, key] of keys(who)) {
          const res = await limit.get(key);
          if (res && res.consumedPoints >= limit.points) throw refuse(res);
        }
      },
      async penalize(who) {
        for (const [limit, key] of keys(who)) await limit.penalty(key);
      },
    };
  };
  return {
    orders: rule(
      limiter('orders:customer', config.ordersPerCustomerPerMinute, 60),
      limiter('orders:ip', config.ordersPerIpPerMinute, 60),
      'Too many orders placed. Please wait a moment.',
    ),
    promoFailures: rule(
      limiter('promo:customer', config.promoFailuresPerCustomerPerHour, 3600),
      limiter('promo:ip', config.promoFailuresPerIpPerHour, 3600),
      'Too many promo codes tried. Try again later.',
    ),
  };
}
