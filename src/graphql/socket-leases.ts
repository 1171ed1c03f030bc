/**
 * The per-user socket cap, shared by every instance: each authenticated socket holds a lease
 * row in PostgreSQL (the store the rate limits already share; Redis is optional, PostgreSQL is
 * not). A lease counts while its instance is alive: the instance renews one row of its own
 * (`socket_instances`) every few seconds, not each lease, and deletes a lease when its socket
 * closes; a killed instance's leases stop counting when its row expires, within LEASE_SECONDS.
 */
import { EntityManager } from '@mikro-orm/postgresql';

/** An instance's row outlives its last renewal by this much: three renewals may be missed. */
export const LEASE_SECONDS = 15;
export const RENEW_EVERY_MS = 5_000;
/** A dead instance's row and leases are deleted this long after they stopped counting. */
const FORGET_AFTER_SECONDS = 60;

/**
 * Takes a lease for the socket when the user holds fewer than `cap` live ones. The user's
 * leases are counted under a lock on the user, so two instances cannot both take the last one:
 * one statement (`take_socket_lease`, migration 20261127013000), the lock, the count and the
 * insert in its own transaction (and the instance's row, when it has none).
 */
export async function takeLease(em: EntityManager, id: string, userId: number, instanceId: string, cap: number): Promise<boolean> {
  const [{ taken }] = await em.execute<{ taken: boolean }[]>(`select take_socket_lease(?, ?, ?, ?, ?) as taken`, [
    id,
    userId,
    instanceId,
    cap,
    LEASE_SECONDS,
  ]);
  return taken;
}

/**
 * Keeps this instance's leases counting for LEASE_SECONDS more: one row, however many sockets.
 * If the row was gone (the instance stalled past FORGET_AFTER_SECONDS and another deleted it
 * with its leases), it is written again with the leases of the sockets still open (`held`).
 * Dead instances' rows and leases, and a previous version's expired leases, go meanwhile.
 */
export async function renewInstance(em: EntityManager, instanceId: string, held: () => { id: string; userId: number }[]): Promise<void> {
  const [{ inserted }] = await em.execute<{ inserted: boolean }[]>(
    `insert into socket_instances (id, expires_at) values (?, now() + make_interval(secs => ?))
     on conflict (id) do update set expires_at = excluded.expires_at returning (xmax = 0) as inserted`,
    [instanceId, LEASE_SECONDS],
  );
  if (inserted) {
    const leases = held();
    for (let i = 0; i < leases.length; i += 1000) {
      const part = leases.slice(i, i + 1000);
      await em.execute(
        `insert into socket_leases (id, user_id, instance_id, expires_at)
         select unnest(?::varchar[]), unnest(?::int[]), ?, now() + make_interval(secs => ?) on conflict (id) do nothing`,
        [`{${part.map((l) => l.id).join(',')}}`, `{${part.map((l) => l.userId).join(',')}}`, instanceId, LEASE_SECONDS],
      );
    }
  }
  await em.execute(
    `with dead as (delete from socket_instances where expires_at <= now() - make_interval(secs => ?) returning id)
     delete from socket_leases where instance_id in (select id from dead) or (instance_id is null and expires_at <= now())`,
    [FORGET_AFTER_SECONDS],
  );
}

export async function dropLease(em: EntityManager, id: string): Promise<void> {
  await em.execute(`delete from socket_leases where id = ?`, [id]);
}
