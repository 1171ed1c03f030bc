/**
 * One-time codes: issuing under rate limits, and checking with an atomic attempt counter.
 * Codes come from a CSPRNG and are stored only as an HMAC keyed by a secret derived from the
 * server secret, so a database dump does not reveal live codes.
 */
import { createHmac, hkdfSync, randomInt, timingSafeEqual } from 'node:crypto';
import { EntityManager } from '@mikro-orm/postgresql';
import { Config } from '../../config';
import { Context } from '../../context';
import { AppError, rateLimited } from '../../common/errors';

export interface IssuedCode {
  code: string;
  /** Undo the issue (the code and its count against the limits) when delivery failed. */
  sendId: string;
}

interface LimitRow {
  phone_last: number | null;
  phone_hour: string;
  phone_hour_oldest: number | null;
  phone_day: string;
  phone_day_oldest: number | null;
  ip_hour: string;
  ip_hour_oldest: number | null;
  ip_day: string;
  ip_day_oldest: number | null;
  now: number;
}

const HOUR = 3600;
const DAY = 86400;

/** Stores a fresh code for the phone (replacing any previous one) once the limits allow it. */
export async function issueCode(ctx: Context, phoneNumber: string): Promise<IssuedCode> {
  const config = ctx.services.config.otp;
  const code = config.testNumbers.get(phoneNumber) ?? String(randomInt(0, 1_000_000)).padStart(6, '0');
  const sendId = await ctx.em.transactional(async (tx) => {
    // Serialise issues for one phone so concurrent requests cannot both pass the limits.
    await tx.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`otp:${phoneNumber}`]);
    await enforceLimits(tx, config, phoneNumber, ctx.ip);
    const [send] = await tx.execute<{ id: string }[]>(`insert into otp_sends (phone_number, ip) values (?, ?) returning id`, [
      phoneNumber,
      ctx.ip,
    ]);
    await tx.execute(
      `insert into otp_codes (phone_number, code_hash, expires_at, attempts, created_at)
       values (?, ?, now() + make_interval(secs => ?), 0, now())
       on conflict (phone_number) do update
         set code_hash = excluded.code_hash, expires_at = excluded.expires_at, attempts = 0, created_at = now()`,
      [phoneNumber, hash(ctx, phoneNumber, code), config.ttlSeconds],
    );
    return String(send.id);
  });
  return { code, sendId };
}

/** Delivery failed: no usable code stays behind and the attempt does not count. */
export async function withdrawCode(ctx: Context, phoneNumber: string, issued: IssuedCode): Promise<void> {
  await ctx.em.transactional(async (tx) => {
    await tx.execute(`delete from otp_codes where phone_number = ? and code_hash = ?`, [phoneNumber, hash(ctx, phoneNumber, issued.code)]);
    await tx.execute(`delete from otp_sends where id = ?`, [issued.sendId]);
  });
}

/**
 * Checks a code and consumes it on success. The attempt counter is raised in the same
 * statement that reads the hash, so concurrent guesses evaluate at most `maxAttempts` times.
 *
 * Wrong codes are also limited per client IP across phones (shared by all instances), so one
 * address cannot burn many owners' codes: each try is counted before the code is looked at
 * (concurrent guesses cannot overshoot) and a right code gives its count back.
 */
export async function consumeCode(ctx: Context, phoneNumber: string, code: string): Promise<void> {
  const guesses = ctx.services.rateLimits.otpFailures;
  await guesses.consume({ ip: ctx.ip });
  await checkCode(ctx, phoneNumber, code);
  await guesses.refund({ ip: ctx.ip });
}

async function checkCode(ctx: Context, phoneNumber: string, code: string): Promise<void> {
  const { em } = ctx;
  const { maxAttempts } = ctx.services.config.otp;
  const invalid = new AppError('INVALID_CODE', 'The verification code is invalid or has expired.');
  if (!/^\d{6}$/.test(code)) throw invalid;
  const [row] = await em.execute<{ code_hash: string; attempts: number }[]>(
    `update otp_codes set attempts = attempts + 1
     where phone_number = ? and attempts < ? and expires_at > now()
     returning code_hash, attempts`,
    [phoneNumber, maxAttempts],
  );
  if (!row) {
    const burned = await em.execute(`select 1 from otp_codes where phone_number = ? and attempts >= ? and expires_at > now()`, [
      phoneNumber,
      maxAttempts,
    ]);
    if (burned.length > 0) throw tooManyAttempts();
    throw invalid;
  }
  const expected = Buffer.from(row.code_hash, 'hex');
  if (!timingSafeEqual(expected, Buffer.from(hash(ctx, phoneNumber, code), 'hex'))) {
    throw row.attempts >= maxAttempts ? tooManyAttempts() : invalid;
  }
  // Single use: of two concurrent correct guesses only the one that deletes the row wins.
  const deleted = await em.execute(`delete from otp_codes where phone_number = ? and code_hash = ? returning 1`, [
    phoneNumber,
    row.code_hash,
  ]);
  if (deleted.length === 0) throw invalid;
}

function tooManyAttempts() {
  return rateLimited('Too many attempts. Request a new verification code.');
}

/** The HMAC key, derived once per server secret. */
const keys = new Map<string, Buffer>();

function hash(ctx: Context, phoneNumber: string, code: string): string {
  const secret = ctx.services.config.jwt.secret;
  let key = keys.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'otp-codes', 'delivery-platform', 32));
    keys.set(secret, key);
  }
  return createHmac('sha256', key).update(`${phoneNumber}:${code}`).digest('hex');
}

async function enforceLimits(em: EntityManager, config: Config['otp'], phoneNumber: string, ip: string): Promise<void> {
  const [row] = await em.execute<LimitRow[]>(
    `select
       extract(epoch from max(created_at) filter (where phone_number = ?))::float8 as phone_last,
       count(*) filter (where phone_number = ? and created_at > now() - interval '1 hour') as phone_hour,
       extract(epoch from min(created_at) filter (where phone_number = ? and created_at > now() - interval '1 hour'))::float8 as phone_hour_oldest,
       count(*) filter (where phone_number = ?) as phone_day,
       extract(epoch from min(created_at) filter (where phone_number = ?))::float8 as phone_day_oldest,
       count(*) filter (where ip = ? and created_at > now() - interval '1 hour') as ip_hour,
       extract(epoch from min(created_at) filter (where ip = ? and created_at > now() - interval '1 hour'))::float8 as ip_hour_oldest,
       count(*) filter (where ip = ?) as ip_day,
       extract(epoch from min(created_at) filter (where ip = ?))::float8 as ip_day_oldest,
       extract(epoch from now())::float8 as now
     from otp_sends
     where (phone_number = ? or ip = ?) and created_at > now() - interval '1 day'`,
    [phoneNumber, phoneNumber, phoneNumber, phoneNumber, phoneNumber, ip, ip, ip, ip, phoneNumber, ip],
  );
  const wait = (since: number | null, window: number) => Math.max(1, Math.ceil((since ?? row.now) + window - row.now));
  const { resendCooldownSeconds, perPhonePerHour, perPhonePerDay, perIpPerHour, perIpPerDay } = config;
  if (row.phone_last !== null && row.now - row.phone_last < resendCooldownSeconds) {
    throw rateLimited('Please wait before requesting another code.', wait(row.phone_last, resendCooldownSeconds));
  }
  const caps: [string, number, number | null, number][] = [
    [row.phone_hour, perPhonePerHour, row.phone_hour_oldest, HOUR],
    [row.phone_day, perPhonePerDay, row.phone_day_oldest, DAY],
    [row.ip_hour, perIpPerHour, row.ip_hour_oldest, HOUR],
    [row.ip_day, perIpPerDay, row.ip_day_oldest, DAY],
  ];
  for (const [count, cap, oldest, window] of caps) {
    if (Number(count) >= cap) throw rateLimited('Too many verification codes requested. Try again later.', wait(oldest, window));
  }
}
