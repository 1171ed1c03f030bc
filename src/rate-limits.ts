/**
 * Rate limits shared by every instance: fixed-window counters in PostgreSQL (`rate_limits`),
 * each counted by one atomic upsert on the database's clock, so a limit holds whichever
 * instance a request reaches and whatever the instances' clocks say. Each rule counts per
 * customer and/or per client IP.
 *
 * (rate-limiter-flexible's PostgreSQL store was tried first: it names its prepared statements,
 * and the embedded database serves every pooled connection from one session, where the second
 * connection to prepare the same name fails. The soak found it.)
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { rateLimited } from './common/errors';
import { Config } from './config';
import { executePrepared, type Orm, type PreparedValue } from './common/entity-manager';

export interface Caller {
  userId: number;
  ip: string;
}

/** Who an IP-only rule counts (an anonymous caller). */
export interface Address {
  ip: string;
}

export interface RateLimit<Who = Caller> {
  /** Counts one attempt for the caller; 429 (with Retry-After) past any budget. */
  consume(who: Who): Promise<void>;
  /** 429 when the caller has already used a budget up; counts nothing. */
  check(who: Who): Promise<void>;
  /** Counts one attempt without refusing (a failure that makes the next attempt cost more). */
  penalize(who: Who): Promise<void>;
  /** Gives back one attempt counted by `consume` (it turned out not to be a failure). */
  refund(who: Who): Promise<void>;
}

export interface RateLimits {
  /** Order placements (checkout). */
  orders: RateLimit;
  /** Checkouts whose promo code was refused: guessing codes. */
  promoFailures: RateLimit;
  /** Wrong one-time codes (verify-otp) per client IP: guessing, or burning others' codes. */
  otpFailures: RateLimit<Address>;
}

const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Adds one to the key's window (a new window when the last one ended): the count and the ms left. */
async function count(em: EntityManager, key: string, windowMs: number): Promise<{ points: number; msLeft: number }> {
  const [row] = await em.execute<{ points: number; ms_left: string }[]>(
    `insert into rate_limits (key, points, expire) values (?, 1, ${NOW_MS} + ?)
     on conflict (key) do update set
       points = case when rate_limits.expire <= ${NOW_MS} then 1 else rate_limits.points + 1 end,
       expire = case when rate_limits.expire <= ${NOW_MS} then excluded.expire else rate_limits.expire end
     returning points, greatest(0, expire - ${NOW_MS}) as ms_left`,
    [key, windowMs],
  );
  return { points: row.points, msLeft: Number(row.ms_left) };
}

/**
 * `count` of each budget in turn, in one statement: a budget is counted only while the ones
 * before it held (as one `count` after another, stopping at the first refusal, would). Answers
 * the counts made, in the budgets' order.
 */
async function countInTurn(em: EntityManager, budgets: { key: string; points: number; windowMs: number }[]) {
  const { sql, params } = countInTurnStatement(budgets);
  // Prepared (on the read pool: an autocommit upsert): every checkout sends it.
  const rows = await executePrepared<{ k: number; points: number; ms_left: string }>(em, sql, params);
  return rows.sort((a, b) => a.k - b.k).map((r) => ({ points: r.points, msLeft: Number(r.ms_left) }));
}

/** `countInTurn`'s statement: a row (`k`, `points`, `ms_left`) per budget counted. */
export function countInTurnStatement(budgets: { key: string; points: number; windowMs: number }[]): {
  sql: string;
  params: PreparedValue[];
} {
  const steps = budgets.map(
    (_, k) =>
      `c${k} as (insert into rate_limits (key, points, expire) select ?::text, 1, ${NOW_MS} + ?::bigint
         ${k === 0 ? '' : `where (select points from c${k - 1}) <= ?::int`}
       on conflict (key) do update set
         points = case when rate_limits.expire <= ${NOW_MS} then 1 else rate_limits.points + 1 end,
         expire = case when rate_limits.expire <= ${NOW_MS} then excluded.expire else rate_limits.expire end
       returning points, greatest(0, expire - ${NOW_MS}) as ms_left)`,
  );
  const params = budgets.flatMap((b, k) => (k === 0 ? [b.key, b.windowMs] : [b.key, b.windowMs, budgets[k - 1].points]));
  return {
    sql: `with ${steps.join(', ')} ${budgets.map((_, k) => `select ${k} as k, points, ms_left from c${k}`).join(' union all ')}`,
    params,
  };
}

async function current(em: EntityManager, key: string): Promise<{ points: number; msLeft: number } | undefined> {
  const [row] = await em.execute<{ points: number; ms_left: string }[]>(
    `select points, expire - ${NOW_MS} as ms_left from rate_limits where key = ? and expire > ${NOW_MS}`,
    [key],
  );
  return row && { points: row.points, msLeft: Number(row.ms_left) };
}

async function giveBack(em: EntityManager, key: string): Promise<void> {
  await em.execute(`update rate_limits set points = points - 1 where key = ? and points > 0 and expire > ${NOW_MS}`, [key]);
}

interface Budget {
  prefix: string;
  points: number;
  windowSeconds: number;
}

/** A budget and the key it counts the caller under. */
type Keyed<Who> = (who: Who) => Budget & { key: string };

const perCustomer =
  (budget: Budget): Keyed<Caller> =>
  (who) => ({ ...budget, key: `${budget.prefix}:user:${who.userId}` });
const perIp =
  (budget: Budget): Keyed<Address> =>
  (who) => ({ ...budget, key: `${budget.prefix}:ip:${who.ip}` });

function rule<Who>(orm: Orm, keyed: Keyed<Who>[], message: string): RateLimit<Who> {
  const budgets = (who: Who) => keyed.map((budgetOf) => budgetOf(who));
  const refuse = (msLeft: number) => rateLimited(message, Math.max(1, Math.ceil(msLeft / 1000)));
  return {
    async consume(who) {
      const list = budgets(who);
      const counted = await countInTurn(
        orm.em.fork(),
        list.map((b) => ({ key: b.key, points: b.points, windowMs: b.windowSeconds * 1000 })),
      );
      counted.forEach(({ points, msLeft }, k) => {
        if (points > list[k].points) throw refuse(msLeft);
      });
    },
    async check(who) {
      for (const budget of budgets(who)) {
        const used = await current(orm.em.fork(), budget.key);
        if (used && used.points >= budget.points) throw refuse(used.msLeft);
      }
    },
    async penalize(who) {
      for (const budget of budgets(who)) await count(orm.em.fork(), budget.key, budget.windowSeconds * 1000);
    },
    async refund(who) {
      for (const budget of budgets(who)) await giveBack(orm.em.fork(), budget.key);
    },
  };
}

export function createRateLimits(orm: Orm, config: Config['rateLimits']): RateLimits {
  return {
    orders: rule(
      orm,
      [
        perCustomer({ prefix: 'orders', points: config.ordersPerCustomerPerMinute, windowSeconds: 60 }),
        perIp({ prefix: 'orders', points: config.ordersPerIpPerMinute, windowSeconds: 60 }),
      ],
      'Too many orders placed. Please wait a moment.',
    ),
    promoFailures: rule(
      orm,
      [
        perCustomer({ prefix: 'promo', points: config.promoFailuresPerCustomerPerHour, windowSeconds: 3600 }),
        perIp({ prefix: 'promo', points: config.promoFailuresPerIpPerHour, windowSeconds: 3600 }),
      ],
      'Too many promo codes tried. Try again later.',
    ),
    otpFailures: rule(
      orm,
      [perIp({ prefix: 'otp-verify', points: config.otpFailuresPerIpPer15Minutes, windowSeconds: 900 })],
      'Too many wrong verification codes from this address. Try again later.',
    ),
  };
}
