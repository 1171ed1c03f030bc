/**
 * Idempotency-Key, the way checkout honours it and every other money operation reuses it. Keys
 * are per customer. The first request claims the key; its answer is saved when it is done (in
 * the work's own transaction when it has one). A retry with the same key and body answers the
 * first answer; the same key with another body is 422 (`errors.idempotency_key`); a retry while
 * the first runs is 409. A request that failed frees its key. A claim left unfinished for 60 s
 * (a crashed worker) may be taken over.
 */
import { createHash } from 'node:crypto';
import { EntityManager } from '@mikro-orm/postgresql';
import { conflict, invalidField } from '../../common/errors';

/** How long a claimed key may stay unfinished before a retry may take it over (a crashed worker). */
const ABANDONED_AFTER_SECONDS = 60;

/** What a key may be: visible ASCII, as long as the stored column (clients send UUIDs or similar). */
const KEY_SHAPE = /^[\x21-\x7E]{1,255}$/;

/** The caller's key, trimmed; null when none was sent; 422 when it cannot be a key. Checked before any query. */
export function parseKey(raw?: string | null): string | null {
  const key = raw?.trim() || null;
  if (key !== null && !KEY_SHAPE.test(key)) {
    throw invalidField('idempotencyKey', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters (a UUID is a good key).');
  }
  return key;
}

/** Canonical hash of the request: the same body in any key order hashes the same. */
export function requestHash(input: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify(canonical(input)))
    .digest('hex');
}

/**
 * Claims the key for this request. Answers the first result when it is already done; 409
 * while the first request runs; 422 when the key was used for a different request.
 */
export async function claimKey<T>(em: EntityManager, userId: number, key: string, hash: string): Promise<T | null> {
  const claimed = await em.execute(
    `insert into idempotency_keys (user_id, key, request_hash) values (?, ?, ?) on conflict do nothing returning key`,
    [userId, key, hash],
  );
  if (claimed.length > 0) return null;
  const [row] = await em.execute<{ request_hash: string; response: T | null; age: number }[]>(
    `select request_hash, response, extract(epoch from now() - created_at)::float8 as age from idempotency_keys where user_id = ? and key = ?`,
    [userId, key],
  );
  if (!row) return claimKey<T>(em, userId, key, hash); // the first request failed and freed it just now
  if (row.request_hash !== hash) throw invalidField('idempotencyKey', 'This Idempotency-Key was used for a different request.');
  if (row.response) return typeof row.response === 'string' ? (JSON.parse(row.response) as T) : row.response;
  if (row.age > ABANDONED_AFTER_SECONDS) {
    const taken = await em.execute(
      `update idempotency_keys set created_at = now() where user_id = ? and key = ? and response is null and created_at < now() - make_interval(secs => ?) returning key`,
      [userId, key, ABANDONED_AFTER_SECONDS],
    );
    if (taken.length > 0) return null;
  }
  throw conflict('A request with this Idempotency-Key is still being processed.');
}

/** Records the first answer; a replay of the key answers it from now on. */
export async function saveAnswer(em: EntityManager, userId: number, key: string, answer: unknown): Promise<void> {
  await em.execute(`update idempotency_keys set response = ? where user_id = ? and key = ?`, [JSON.stringify(answer), userId, key]);
}

/** The request failed and wrote nothing: a corrected request may use the key. */
export async function freeKey(em: EntityManager, userId: number, key: string): Promise<void> {
  await em.execute(`delete from idempotency_keys where user_id = ? and key = ? and response is null`, [userId, key]);
}
