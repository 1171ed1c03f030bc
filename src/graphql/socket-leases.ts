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

/** What an instance holds at a renewal: its sockets' leases, and the ids of the leases being taken. */
export interface Held {
  leases: { id: string; userId: number }[];
  taking: string[];
}

/**
 * Keeps this instance's leases counting for LEASE_SECONDS more: one row, however many sockets.
 * Then this instance's leases are made to match the sockets it holds (`held`): a lease whose
 * socket is gone (its delete failed, or it was written after the socket closed) is deleted once
 * it is older than a renewal, and a held socket's lease that is missing (deleted by another
 * instance after a stall, by a previous version's expiry sweep, or lost in a database crash:
 * leases commit without waiting for the WAL) is written again. The existing ones are not
 * rewritten. A lease being taken is kept but never written here: its take writes it, or
 * refuses, under the user's lock (written here, the take's insert met it: a duplicate key, and
 * the user's count included it before the take had counted). Dead instances' rows and leases,
 * and a previous version's expired leases, go meanwhile.
 */
export async function renewInstance(em: EntityManager, instanceId: string, held: () => Held): Promise<void> {
  await em.execute(
    `insert into socket_instances (id, expires_at) values (?, now() + make_interval(secs => ?))
     on conflict (id) do update set expires_at = excluded.expires_at`,
    [instanceId, LEASE_SECONDS],
  );
  const { leases, taking } = held();
  await em.execute(
    `with held as (select unnest(?::varchar[]) as id, unnest(?::int[]) as user_id),
     gone as (
       delete from socket_leases l where l.instance_id = ? and not exists (select 1 from held h where h.id = l.id)
         and l.id <> all (?::varchar[]) and l.expires_at <= now() + make_interval(secs => ?))
     insert into socket_leases (id, user_id, instance_id, expires_at)
     select id, user_id, ?, now() + make_interval(secs => ?) from held on conflict (id) do nothing`,
    [
      `{${leases.map((l) => l.id).join(',')}}`,
      `{${leases.map((l) => l.userId).join(',')}}`,
      instanceId,
      `{${taking.join(',')}}`,
      // Taken before the previous renewal: a lease being taken now is in `held` or newer than this.
      LEASE_SECONDS - RENEW_EVERY_MS / 1000,
      instanceId,
      LEASE_SECONDS,
    ],
  );
  await em.execute(
    `with dead as (delete from socket_instances where expires_at <= now() - make_interval(secs => ?) returning id)
     delete from socket_leases where instance_id in (select id from dead) or (instance_id is null and expires_at <= now())`,
    [FORGET_AFTER_SECONDS],
  );
}

/** This instance leaves the count at once (a graceful stop): its row and leases are deleted. */
export async function leaveCount(em: EntityManager, instanceId: string): Promise<void> {
  await em.execute(`with gone as (delete from socket_instances where id = ?) delete from socket_leases where instance_id = ?`, [
    instanceId,
    instanceId,
  ]);
}

export async function dropLease(em: EntityManager, id: string): Promise<void> {
  await em.execute(`delete from socket_leases where id = ?`, [id]);
}
