/**
 * Driver profiles (not shown in the spec): who is a driver, their availability and position.
 * Only `drivers` rows are read and written here; what a driver does with orders is the orders
 * module's dispatch.
 */
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

export async function setPosition(tx: EntityManager, driverId: number, latitude: number, longitude: number): Promise<DriverRow> {
  const [row] = await tx.execute<DriverRow[]>(
    `update drivers set latitude = ?, longitude = ?, location_updated_at = now() where id = ? returning *`,
    [latitude, longitude, driverId],
  );
  return row;
}
