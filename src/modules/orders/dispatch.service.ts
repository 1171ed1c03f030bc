/**
 * Dispatch: a driver's work on orders. Automatic assignment of the nearest free online driver,
 * the orders a driver carries, and what going online or moving does to them. Driver rows are
 * locked FOR UPDATE SKIP LOCKED so that two orders accepted at once never get the same driver.
 * The locking search reads `drivers` with `orders` in one statement (the pick and the lock
 * must be one step); driver rows are written only by drivers/driver.service.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { Logger } from '../../common/logger';
import { Context, viewerOf } from '../../context';
import type { AppPubSub } from '../../pubsub';
import type { DriverState, WrittenPosition } from '../drivers/driver-positions';
import { Driver } from '../drivers/driver.entity';
import { requireDriver, setAvailability } from '../drivers/driver.service';
import { appendEvent, OrderEventMessage, publishEvents, publishPosition } from './order-events';
import { ACTIVE_DRIVER_STATUSES, WAITING_FOR_DRIVER_STATUSES } from './order-status';
import { Order, OrderRow } from './order.entity';

/** Drivers farther than this from the store are not assigned its orders. */
export const DRIVER_SEARCH_RADIUS_KM = 15;

export async function setOnline(ctx: Context, online: boolean, position?: { latitude: number; longitude: number }): Promise<Driver> {
  const driver = await requireDriver(ctx);
  // A position sent with going online is a claim like any other (422 when implausible).
  if (position) await ctx.services.positions.check(() => ctx.em, viewerOf(ctx).userId, position.latitude, position.longitude);
  const { row, events } = await ctx.em.transactional(async (tx) => {
    const row = await setAvailability(tx, driver.id, online, position);
    return { row, events: online ? await assignWaitingOrder(tx, driver.id) : [] };
  });
  publishEvents(ctx.services.pubSub, events);
  ctx.services.positions.noteRow(row);
  return ctx.em.map(Driver, row); // the raw UPDATE's row refreshes the identity map
}

/**
 * Keeps the driver's position (422 when implausible: driver-positions.ts). No statement: it is
 * written and sent to the followers of the driver's orders at the next flush (`positionsWritten`).
 */
export function reportLocation(ctx: Context, latitude: number, longitude: number): Promise<DriverState> {
  // The context's EntityManager is forked only if the driver or the area must be read.
  return ctx.services.positions.report(() => ctx.em, viewerOf(ctx).userId, latitude, longitude);
}

/**
 * After a flush of positions: each one goes to the followers of the orders its driver carries
 * (the order's topic only: a store's board and the driver's own stream have no use for it), and
 * if a flushed driver is online and free, orders waiting for a driver are offered again.
 */
export async function positionsWritten(em: EntityManager, pubSub: AppPubSub, logger: Logger, written: WrittenPosition[]): Promise<void> {
  const carried = await em.execute<{ id: number; store_id: number; driver_id: number; status: string; last_event_seq: number }[]>(
    `select id, store_id, driver_id, status, last_event_seq from orders where driver_id in (?) and status in (?)`,
    [written.map((w) => w.driverId), ACTIVE_DRIVER_STATUSES],
  );
  const byDriver = new Map(written.map((w) => [w.driverId, w]));
  for (const order of carried) {
    const { latitude, longitude, at } = byDriver.get(order.driver_id)!;
    publishPosition(pubSub, {
      orderId: order.id,
      seq: order.last_event_seq,
      type: 'driver_location',
      status: order.status,
      at: at.toISOString(),
      data: { latitude, longitude },
      storeId: order.store_id,
      driverId: order.driver_id,
      live: true,
    });
  }
  const busy = new Set(carried.map((o) => o.driver_id));
  if (!written.some((w) => w.isOnline && !busy.has(w.driverId))) return;
  try {
    publishEvents(pubSub, await em.transactional((tx) => offerWaitingOrders(tx)));
  } catch (error) {
    logger.error({ err: error }, 'dispatch: offering waiting orders failed');
  }
}

/** The oldest orders waiting for a driver each get the nearest free online driver, if any (at most 20 per call). */
async function offerWaitingOrders(tx: EntityManager): Promise<OrderEventMessage[]> {
  const waiting = await tx.execute<{ id: number }[]>(
    `select id from orders where driver_id is null and status in (?) order by created_at, id limit 20 for update skip locked`,
    [WAITING_FOR_DRIVER_STATUSES],
  );
  const events: OrderEventMessage[] = [];
  for (const { id } of waiting) events.push(...(await assignDriverToOrder(tx, id)).events);
  return events;
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
