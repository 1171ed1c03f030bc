/**
 * Offers and ads are live while now is inside [startsAt, endsAt); either end may be open.
 * One rule, as an ORM filter and as SQL.
 */
export function activeWindowWhere(now = new Date()) {
  return {
    $and: [{ $or: [{ startsAt: null }, { startsAt: { $lte: now } }] }, { $or: [{ endsAt: null }, { endsAt: { $gt: now } }] }],
  };
}

/** The same rule in SQL for a table aliased `alias`. */
export const activeWindowSql = (alias: string) =>
  `(${alias}.starts_at is null or ${alias}.starts_at <= now()) and (${alias}.ends_at is null or ${alias}.ends_at > now())`;
