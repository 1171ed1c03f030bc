/**
 * Dispatch: a driver's work on orders. Automatic assignment of the nearest free online driver,
 * the orders a driver carries, and what going online or moving does to them. Driver rows are
 * locked FOR UPDATE SKIP LOCKED so that two orders accepted at once never get the same driver.
 * The locking search reads `drivers` with `orders` in one statement (the pick and the lock
 * must be one step); driver rows are written only by drivers/driver.service.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { Context } from '../../context';
import { Driver } from '../drivers/driver.entity';
import { requireDriver, setAvailability, setPosition } from '../drivers/driver.service';
import { appendEvent, OrderEventMessage, publishEvents } from './order-events';
import { ACTIVE_DRIVER_STATUSES, WAITING_FOR_DRIVER_STATUSES } from './order-status';
import { Order, OrderRow } from './order.entity';

/** Drivers farther than this from the store are not assigned its orders. */
export const DRIVER_SEARCH_RADIUS_KM = 15;

export async function setOnline(ctx: Context, online: boolean, position?: { latitude: number; longitude: number }): Promise<Driver> {
  const driver = await requireDriver(ctx);
  const { row, events } = await ctx.em.transactional(async (tx) => {
    const row = await setAvailability(tx, driver.id, online, position);
    return { row, events: online ? await assignWaitingOrder(tx, driver.id) : [] };
  });
  publishEvents(ctx.services.pubSub, events);
  return ctx.em.map(Driver, row); // the raw UPDATE's row refreshes the identity map
}

/**
 * Stores the driver's position; each active order of theirs gets a `driver_location` event,
 * at most one per `throttleSeconds` per order, so subscribers see the car move.
 */
export async function reportLocation(ctx: Context, latitude: number, longitude: number): Promise<Driver> {
  const driver = await requireDriver(ctx);
  const throttle = ctx.services.config.tracking.locationThrottleSeconds;
  const { row, events } = await ctx.em.transactional(async (tx) => {
    const row = await setPosition(tx, driver.id, latitude, longitude);
    const due = await tx.execute<{ id: number }[]>(
      `select o.id from orders o
       where o.driver_id = ? and o.status in (?)
         and not exists (select 1 from order_events e where e.order_id = o.id and e.type = ?
                         and e.created_at > now() - make_interval(secs => ?))`,
      [driver.id, ACTIVE_DRIVER_STATUSES, 'driver_location', throttle],
    );
    const written: OrderEventMessage[] = [];
    for (const { id } of due) written.push(await appendEvent(tx, id, 'driver_location', { latitude, longitude }));
    if (driver.isOnline) written.push(...(await assignWaitingOrder(tx, driver.id)));
    return { row, events: written };
  });
  publishEvents(ctx.services.pubSub, events);
  return ctx.em.map(Driver, row);
}

/** The driver's orders still to deliver, oldest first. */
export async function driverOrders(ctx: Context): Promise<Order[]> {
  const driver = await requireDriver(ctx);
  return ctx.em.find(Order, { driver, status: { $in: ACTIVE_DRIVER_STATUSES } }, { orderBy: { createdAt: 'asc' } });
}

/** Gives an order without a driver to the nearest free online driver, if any. */
export async function assignDriverToOrder(tx: EntityManager, orderId: number): Promise<{ events: OrderEventMessage[]; row?: OrderRow }> {
  const [driver] = await tx.execute<{ id: number }[]>(
    `select d.id
     from drivers d, orders o join stores s on s.id = o.store_id
     where o.id = ? and o.driver_id is null and d.is_online and d.latitude is not null
       and earth_box(ll_to_earth(s.latitude, s.longitude), ?) @> ll_to_earth(d.latitude, d.longitude)
       and not exists (select 1 from orders busy where busy.driver_id = d.id and busy.status in (?))
     order by earth_distance(ll_to_earth(d.latitude, d.longitude), ll_to_earth(s.latitude, s.longitude)), d.id
     limit 1
     for update of d skip locked`,
    [orderId, DRIVER_SEARCH_RADIUS_KM * 1000, ACTIVE_DRIVER_STATUSES],
  );
  if (!driver) return { events: [] };
  return assign(tx, orderId, driver.id);
}

async function assign(tx: EntityManager, orderId: number, driverId: number): Promise<{ events: OrderEventMessage[]; row: OrderRow }> {
  const [row] = await tx.execute<OrderRow[]>(`update orders set driver_id = ? where id = ? returning *`, [driverId, orderId]);
  return { row, events: [await appendEvent(tx, orderId, 'driver_assigned', { driverId })] };
}

/** A driver who became free or available takes the oldest accepted order waiting nearby. */
async function assignWaitingOrder(tx: EntityManager, driverId: number): Promise<OrderEventMessage[]> {
  const [free] = await tx.execute<{ id: number }[]>(
    `select d.id from drivers d
     where d.id = ? and d.is_online and d.latitude is not null
       and not exists (select 1 from orders busy where busy.driver_id = d.id and busy.status in (?))
     for update of d`,
    [driverId, ACTIVE_DRIVER_STATUSES],
  );
  if (!free) return [];
  const [order] = await tx.execute<{ id: number }[]>(
    `select o.id from orders o join stores s on s.id = o.store_id, drivers d
     where d.id = ? and o.driver_id is null and o.status in (?)
       and earth_box(ll_to_earth(d.latitude, d.longitude), ?) @> ll_to_earth(s.latitude, s.longitude)
     order by o.created_at, o.id
     limit 1
     for update of o skip locked`,
    [driverId, WAITING_FOR_DRIVER_STATUSES, DRIVER_SEARCH_RADIUS_KM * 1000],
  );
  if (!order) return [];
  return (await assign(tx, order.id, driverId)).events;
}

/** After a delivery the driver is free again: give them the next waiting order. */
export async function afterDelivery(tx: EntityManager, driverId: number | null): Promise<OrderEventMessage[]> {
  return driverId === null ? [] : assignWaitingOrder(tx, driverId);
}
