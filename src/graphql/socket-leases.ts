/**
 * The per-user socket cap, shared by every instance: each authenticated socket holds a lease
 * row in PostgreSQL (the store the rate limits already share; Redis is optional, PostgreSQL is
 * not). The instance renews its leases every few seconds and deletes a lease when its socket
 * closes; a killed instance's leases stop counting when they expire, within LEASE_SECONDS.
 */
import { EntityManager } from '@mikro-orm/postgresql';

/** A lease outlives its last renewal by this much: three renewals may be missed. */
export const LEASE_SECONDS = 15;
export const RENEW_EVERY_MS = 5_000;

/**
 * Takes a lease for the socket when the user holds fewer than `cap` live ones. The user's
 * leases are counted under a lock on the user, so two instances cannot both take the last one.
 */
export async function takeLease(em: EntityManager, id: string, userId: number, cap: number): Promise<boolean> {
  return em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`socket-leases:${userId}`]);
    await tx.execute(`delete from socket_leases where user_id = ? and expires_at <= now()`, [userId]);
    const [{ held }] = await tx.execute<{ held: number }[]>(`select count(*)::int as held from socket_leases where user_id = ?`, [userId]);
    if (held >= cap) return false;
    await tx.execute(`insert into socket_leases (id, user_id, expires_at) values (?, ?, now() + make_interval(secs => ?))`, [
      id,
      userId,
      LEASE_SECONDS,
    ]);
    return true;
  });
}

/**
 * Renews this instance's leases; leases left by dead instances go once expired. An instance
 * holding none sends nothing (takeLease clears a user's expired leases before counting them).
 */
export async function renewLeases(em: EntityManager, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  for (let i = 0; i < ids.length; i += 1000) {
    await em.execute(`update socket_leases set expires_at = now() + make_interval(secs => ?) where id in (?)`, [
      LEASE_SECONDS,
      ids.slice(i, i + 1000),
    ]);
  }
  await em.execute(`delete from socket_leases where expires_at <= now()`);
}

export async function dropLease(em: EntityManager, id: string): Promise<void> {
  await em.execute(`delete from socket_leases where id = ?`, [id]);
}
