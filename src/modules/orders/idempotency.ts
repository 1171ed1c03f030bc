/**
 * Idempotency-Key, the way checkout honours it and every other money operation reuses it. Keys
 * are per customer. The first request claims the key inside its transaction and saves its
 * answer there (checkout); a retry with the same key and body waits for it and answers the first
 * answer; the same key with another body is 422 (`errors.idempotency_key`). A request that
 * failed leaves no claim. No claim outlives its holder: a killed instance's dropped connection
 * rolls its claim back, so the client's retry goes through (docs/decisions.md).
 */
import { createHash } from 'node:crypto';
import { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../common/errors';

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
 * The claim's insert (user id, key, request hash): a row when this transaction took the key,
 * none when another holds or held it (after waiting for it to end). Checkout sends it as a
 * CTE of its first read (checkout-query.ts); `claimKey` on its own.
 */
export const CLAIM_SQL = `insert into idempotency_keys (user_id, key, request_hash) values (?, ?, ?) on conflict do nothing returning key`;

/**
 * Claims the key for this request, inside the transaction that does the work: the claim is a
 * row of that transaction, so it lives exactly as long as its holder (a rollback, a crash or a
 * dropped connection takes it away). A second request with the key waits on the unique index
 * until the first commits or ends, within the pool's lock timeout (else 503, retry).
 * Answers null when this transaction holds the claim; else `{ answer }` from the committed row:
 * the first result, or null when the work committed without one (a payment start whose provider
 * call came after its commit). 422 when the key was used for a different request.
 */
export async function claimKey<T>(tx: EntityManager, userId: number, key: string, hash: string): Promise<{ answer: T | null } | null> {
  const claimed = await tx.execute(CLAIM_SQL, [userId, key, hash]);
  if (claimed.length > 0) return null;
  return claimedBefore<T>(tx, userId, key, hash);
}

/** `claimKey`'s answer once its insert found the key taken (checkout's insert is a CTE of its first read). */
export async function claimedBefore<T>(tx: EntityManager, userId: number, key: string, hash: string): Promise<{ answer: T | null } | null> {
  // Read committed: this statement sees the row the first request committed.
  const [row] = await tx.execute<{ request_hash: string; response: T | string | null }[]>(
    `select request_hash, response from idempotency_keys where user_id = ? and key = ?`,
    [userId, key],
  );
  if (!row) return claimKey<T>(tx, userId, key, hash); // freed (a payment start that failed after its commit) just now
  if (row.request_hash !== hash) throw invalidField('idempotencyKey', 'This Idempotency-Key was used for a different request.');
  const answer = typeof row.response === 'string' ? (JSON.parse(row.response) as T) : row.response;
  return { answer };
}

/** Records the first answer; a replay of the key answers it from now on. */
export async function saveAnswer(em: EntityManager, userId: number, key: string, answer: unknown): Promise<void> {
  await em.execute(`update idempotency_keys set response = ? where user_id = ? and key = ?`, [JSON.stringify(answer), userId, key]);
}

/** The request failed and wrote nothing: a corrected request may use the key. */
export async function freeKey(em: EntityManager, userId: number, key: string): Promise<void> {
  await em.execute(`delete from idempotency_keys where user_id = ? and key = ? and response is null`, [userId, key]);
}
