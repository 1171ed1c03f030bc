/**
 * Sign-in leaves short-lived rows behind (codes, sends counted by the rate limits,
 * verifications, revoked token ids). Once past their use they are deleted here, hourly.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import type { QueryResult } from '@mikro-orm/core';

export async function purgeExpiredAuthRecords(em: EntityManager): Promise<number> {
  const statements = [
    `delete from otp_codes where expires_at < now()`,
    `delete from otp_sends where created_at < now() - interval '1 day'`,
    `delete from phone_verifications where expires_at < now()`,
    `delete from revoked_tokens where expires_at < now()`,
    // Shared rate-limit counters whose window is over (milliseconds since the epoch).
    `delete from rate_limits where expire < extract(epoch from now()) * 1000`,
  ];
  let removed = 0;
  for (const sql of statements) {
    removed += (await em.execute<QueryResult>(sql, [], 'run')).affectedRows;
  }
  return removed;
}
