/**
 * What every session of this service (any instance) is named after in pg_stat_activity: the
 * configuration's `database.sessionName` (PGAPPNAME, read in config.ts; the bench finds its
 * servers' queries by it). One name per deployment, not per instance: db/orm.ts follows it with
 * the pid and the pool's number, and the reminder pass (notifications/outbox.ts) tells the
 * service's transactions from others' by it.
 */
export const DEFAULT_SESSION_NAME = 'delivery';

/** What the application_name of every session named after `name` starts with. */
export function sessionNamePrefix(name: string): string {
  return `${name} `;
}
