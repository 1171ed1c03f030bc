/**
 * Drivers (not shown in the spec): availability, position, and automatic assignment of the
 * nearest free online driver. Driver rows are locked FOR UPDATE SKIP LOCKED so that two
 * orders accepted at once never get the same driver.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { forbidden } from '../../common/errors';
import { Context } from '../../context';
import { requireViewer } from '../auth/token.service';
import { appendEvent, OrderEventMessage, publishEvents } from '../orders/order-events';
import { ACTIVE_DRIVER_STATUSES } from '../orders/order-status';
import { Order } from '../orders/order.entity';
import { Driver } from './driver.entity';

/** Drivers farther than this from the store are not assigned its orders. */
export const DRIVER_SEARCH_RADIUS_KM = 15;

const ACTIVE = ACTIVE_DRIVER_STATUSES.map((s) => `'${s}'`).join(',');

export async function requireDriver(ctx: Context): Promise<Driver> {
  const viewer = requireViewer(ctx.viewer, ctx.authError);
  const driver = await ctx.em.findOne(Driver, { user: viewer.userId });
  if (!driver) throw forbidden('You are not registered as a driver.');
  return driver;
}

export async function setOnline(ctx: Context, online: boolean, position?: { latitude: number; longitude: number }): Promise<Driver> {
  const driver = await requireDriver(ctx);
  const events = await ctx.em.transactional(async (tx) => {
    await tx.execute(
      `update drivers set is_online = ?, latitude = coalesce(?, latitude), longitude = coalesce(?, longitude),
         location_updated_at = case when ? then now() else location_updated_at end where id = ?`,
      [online, position?.latitude ?? null, position?.longitude ?? null, position !== undefined, driver.id],
    );
    return online ? assignWaitingOrder(tx, driver.id) : [];
  });
  publishEvents(ctx.services.pubSub, events);
  await ctx.em.refresh(driver);
  return driver;
}

/**
 * Stores the driver's position; each active order of theirs gets a `driver_location` event,
 * at most one per `throttleSeconds` per order, so subscribers see the car move.
 */
export async function reportLocation(ctx: Context, latitude: number, longitude: number): Promise<Driver> {
  const driver = await requireDriver(ctx);
  const throttle = ctx.services.config.tracking.locationThrottleSeconds;
  const events = await ctx.em.transactional(async (tx) => {
    await tx.execute(`update drivers set latitude = ?, longitude = ?, location_updated_at = now() where id = ?`, [latitude, longitude, driver.id]);
    const due = await tx.execute<{ id: number }[]>(
      `select o.id from orders o
       where o.driver_id = ? and o.status in (${ACTIVE})
         and not exists (select 1 from order_events e where e.order_id = o.id and e.type = 'driver_location'
                         and e.created_at > now() - make_interval(secs => ?))`,
      [driver.id, throttle],
    );
    const written: OrderEventMessage[] = [];
    for (const { id } of due) written.push(await appendEvent(tx, id, 'driver_location', { latitude, longitude }));
    if (driver.isOnline) written.push(...(await assignWaitingOrder(tx, driver.id)));
    return written;
  });
  publishEvents(ctx.services.pubSub, events);
  await ctx.em.refresh(driver);
  return driver;
}

/** The driver's orders still to deliver, oldest first. */
export async function driverOrders(ctx: Context): Promise<Order[]> {
  const driver = await requireDriver(ctx);
  return ctx.em.find(Order, { driver, status: { $in: ACTIVE_DRIVER_STATUSES } }, { orderBy: { createdAt: 'asc' } });
}

/** Gives an order without a driver to the nearest free online driver, if any. */
export async function assignDriverToOrder(tx: EntityManager, orderId: number): Promise<OrderEventMessage[]> {
  const [driver] = await tx.execute<{ id: number }[]>(
    `select d.id
     from drivers d, orders o join stores s on s.id = o.store_id
     where o.id = ? and o.driver_id is null and d.is_online and d.latitude is not null
       and earth_box(ll_to_earth(s.latitude, s.longitude), ?) @> ll_to_earth(d.latitude, d.longitude)
       and not exists (select 1 from orders busy where busy.driver_id = d.id and busy.status in (${ACTIVE}))
     order by earth_distance(ll_to_earth(d.latitude, d.longitude), ll_to_earth(s.latitude, s.longitude)), d.id
     limit 1
     for update of d skip locked`,
    [orderId, DRIVER_SEARCH_RADIUS_KM * 1000],
  );
  if (!driver) return [];
  await tx.execute(`update orders set driver_id = ? where id = ?`, [driver.id, orderId]);
  return [await appendEvent(tx, orderId, 'driver_assigned', { driverId: driver.id })];
}

/** A driver who became free or available takes the oldest accepted order waiting nearby. */
async function assignWaitingOrder(tx: EntityManager, driverId: number): Promise<OrderEventMessage[]> {
  const [free] = await tx.execute<{ id: number }[]>(
    `select d.id from drivers d
     where d.id = ? and d.is_online and d.latitude is not null
       and not exists (select 1 from orders busy where busy.driver_id = d.id and busy.status in (${ACTIVE}))
     for update of d`,
    [driverId],
  );
  if (!free) return [];
  const [order] = await tx.execute<{ id: number }[]>(
    `select o.id from orders o join stores s on s.id = o.store_id, drivers d
     where d.id = ? and o.driver_id is null and o.status in ('accepted','preparing','ready_for_pickup')
       and earth_box(ll_to_earth(d.latitude, d.longitude), ?) @> ll_to_earth(s.latitude, s.longitude)
     order by o.created_at, o.id
     limit 1
     for update of o skip locked`,
    [driverId, DRIVER_SEARCH_RADIUS_KM * 1000],
  );
  if (!order) return [];
  await tx.execute(`update orders set driver_id = ? where id = ?`, [driverId, order.id]);
  return [await appendEvent(tx, order.id, 'driver_assigned', { driverId })];
}

/** After a delivery the driver is free again: give them the next waiting order. */
export async function afterDelivery(tx: EntityManager, driverId: number | null): Promise<OrderEventMessage[]> {
  return driverId === null ? [] : assignWaitingOrder(tx, driverId);
}
