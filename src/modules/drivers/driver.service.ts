/**
 * Driver profiles (not shown in the spec): who is a driver, their availability and position.
 * Only `drivers` rows are read and written here; what a driver does with orders is the orders
 * module's dispatch.
 */
import type { Position } from '../../common/driver-positions';
import { EntityManager } from '@mikro-orm/postgresql';
import { forbidden } from '../../common/errors';
import { Context, viewerOf } from '../../context';
import { Driver } from './driver.entity';

/** A `drivers` row as `update ... returning *` answers it (for `em.map`). */
export type DriverRow = Record<string, unknown> & { id: number };

export async function requireDriver(ctx: Context): Promise<Driver> {
  const viewer = viewerOf(ctx);
  const driver = await ctx.em.findOne(Driver, { user: viewer.userId });
  if (!driver) throw forbidden('You are not registered as a driver.');
  return driver;
}

/** Online or offline; a position given with it is stored too. */
export async function setAvailability(
  tx: EntityManager,
  driverId: number,
  online: boolean,
  position?: { latitude: number; longitude: number },
): Promise<DriverRow> {
  const [row] = await tx.execute<DriverRow[]>(
    `update drivers set is_online = ?, latitude = coalesce(?, latitude), longitude = coalesce(?, longitude),
       location_updated_at = case when ? then now() else location_updated_at end where id = ? returning *`,
    [online, position?.latitude ?? null, position?.longitude ?? null, position !== undefined, driverId],
  );
  return row;
}

/** A driver's profile and latest stored position, by their user (null: not a driver). */
export async function driverOfUser(em: EntityManager, userId: number): Promise<DriverRow | null> {
  const [row] = await em.execute<DriverRow[]>(`select * from drivers where user_id = ?`, [userId]);
  return row ?? null;
}

/** A driver's latest stored position (null when none is known). */
export async function storedPosition(em: EntityManager, driverId: number): Promise<Position | null> {
  const [row] = await em.execute<{ latitude: number | null; longitude: number | null; location_updated_at: Date | null }[]>(
    `select latitude, longitude, location_updated_at from drivers where id = ?`,
    [driverId],
  );
  if (!row || row.latitude === null || row.longitude === null) return null;
  return { latitude: row.latitude, longitude: row.longitude, at: new Date(row.location_updated_at ?? Date.now()) };
}

export type { Position };

/**
 * The latest position of many drivers in one statement. A row already holding a later position
 * (written through another instance) keeps it. Answers the rows written, with their availability.
 */
export async function writePositions(
  em: EntityManager,
  positions: { driverId: number; latitude: number; longitude: number; at: Date }[],
): Promise<{ id: number; is_online: boolean }[]> {
  if (positions.length === 0) return [];
  const values = positions.map(() => '(?::int, ?::float8, ?::float8, ?::timestamptz)').join(', ');
  return em.execute<{ id: number; is_online: boolean }[]>(
    `update drivers d set latitude = v.lat, longitude = v.lng, location_updated_at = v.at
     from (values ${values}) as v(id, lat, lng, at)
     where d.id = v.id and (d.location_updated_at is null or d.location_updated_at <= v.at)
     returning d.id, d.is_online`,
    positions.flatMap((p) => [p.driverId, p.latitude, p.longitude, p.at.toISOString()]),
  );
}
