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
import { executePrepared } from '../../common/entity-manager';
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

/** The key's lock: one per (customer, key) in the one-bigint space of advisory locks (promo codes lock in the two-int one). */
const KEY_LOCK = `pg_advisory_xact_lock(hashtextextended(k.key, k.user_id))`;

/**
 * The claim's insert (user id, key, request hash): a row when this transaction took the key,
 * none when another holds or held it (after waiting for it to end). Checkout sends it as a
 * CTE of its first read (checkout-query.ts); `claimKey` on its own. Every claim first takes the
 * key's advisory lock (`KEY_LOCK`, held until its transaction ends), so a second claim of a key
 * waits there for the first's end, never in the insert: a claim with a condition
 * (checkout-query.ts `orderAloneStatement`) decides it once that wait is over.
 */
export const CLAIM_SQL = claimSql('true');

/**
 * `CLAIM_SQL` with `condition` (an SQL condition), evaluated once the key's lock is held, and
 * `response`, an SQL expression over `k.order_id` (the next order id, taken from its sequence
 * with the claim: returned as `order_id`) written as the first answer. Placeholders in text
 * order: the response's, the claim's three (user id, key, hash), the condition's.
 */
export function claimSql(condition: string, response?: string): string {
  return `insert into idempotency_keys (user_id, key, request_hash${response ? ', response' : ''})
       select k.user_id, k.key, k.hash${response ? `, ${response}` : ''}
       from (select ?::int as user_id, ?::text as key, ?::text as hash${response ? `, nextval('orders_id_seq')::int as order_id` : ''}) k
       cross join lateral (select ${KEY_LOCK}) l
       where ${condition}
       on conflict do nothing returning key${response ? `, (response->>'orderId')::int as order_id` : ''}`;
}

/**
 * Claims the key for this request, inside the transaction that does the work: the claim is a
 * row of that transaction, so it lives exactly as long as its holder (a rollback, a crash or a
 * dropped connection takes it away). A second request with the key waits on the key's lock
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
  const before = await keyAnswer<T>(tx, userId, key, hash);
  return before ?? claimKey<T>(tx, userId, key, hash); // freed (a payment start that failed after its commit) just now
}

/**
 * The key's committed use: `{ answer }` (null: its work committed without one), or null when the
 * key is free; 422 when it was used for a different request.
 */
export async function keyAnswer<T>(em: EntityManager, userId: number, key: string, hash: string): Promise<{ answer: T | null } | null> {
  const [row] = await executePrepared<{ request_hash: string; response: T | string | null }>(
    em,
    `select request_hash, response from idempotency_keys where user_id = ?::int and key = ?::text`,
    [userId, key],
  );
  if (!row) return null;
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
