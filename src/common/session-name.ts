/**
 * What every session of this service (any instance) is named after in pg_stat_activity: PGAPPNAME
 * when set, as pg itself would name them (the bench finds its servers' queries by it). One name per
 * deployment, not per instance: db/orm.ts follows it with the pid and the pool's number, and the
 * reminder pass (notifications/outbox.ts) tells the service's transactions from others' by it.
 */
export function sessionNamePrefix(): string {
  return `${process.env.PGAPPNAME || 'delivery'} `;
}
