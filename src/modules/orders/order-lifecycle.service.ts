/**
 * Moves orders along the state machine of order-status.ts. Each move is one conditional
 * UPDATE (status must still be one the transition starts from) plus its event, in one
 * transaction: of two racing moves (accept vs reject) exactly one wins, the other gets 422.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError, forbidden, notFound } from '../../common/errors';
import { Context } from '../../context';
import { requireViewer } from '../auth/token.service';
import { afterDelivery, assignDriverToOrder, requireDriver } from '../drivers/driver.service';
import { appendEvent, OrderEventMessage, publishEvents } from './order-events';
import { TIMEOUT_REJECTION_REASON, TRANSITIONS, TransitionName } from './order-status';

interface OrderRow {
  id: number;
  status: string;
  user_id: number;
  store_id: number;
  owner_id: number | null;
  driver_id: number | null;
}

type Check = (order: OrderRow) => void;

/** Runs `name` on the order after `check` (ownership) passes; answers the events written. */
async function move(
  ctx: Context,
  orderId: number,
  name: TransitionName,
  check: Check,
  set: Record<string, unknown> = {},
  after?: (tx: EntityManager, order: OrderRow) => Promise<OrderEventMessage[]>,
): Promise<OrderEventMessage[]> {
  const events = await ctx.em.transactional(async (tx) => {
    const [order] = await tx.execute<OrderRow[]>(
      `select o.id, o.status, o.user_id, o.store_id, s.owner_id, o.driver_id
       from orders o join stores s on s.id = o.store_id where o.id = ?`,
      [orderId],
    );
    if (!order) throw notFound('Order', orderId);
    check(order);
    const written = await transition(tx, order, name, set);
    return after ? [...written, ...(await after(tx, order))] : written;
  });
  publishEvents(ctx.services.pubSub, events);
  return events;
}

export async function transition(tx: EntityManager, order: { id: number; status: string }, name: TransitionName, set: Record<string, unknown> = {}) {
  const { from, to } = TRANSITIONS[name];
  const columns = Object.keys(set);
  const moved = await tx.execute(
    `update orders set status = ?, updated_at = now()${columns.map((c) => `, ${c} = ?`).join('')}
     where id = ? and status in (${from.map(() => '?').join(',')}) returning id`,
    [to, ...Object.values(set), order.id, ...from],
  );
  if (moved.length === 0) {
    throw new AppError('VALIDATION', `The order cannot be moved to ${to} from its current status.`, {
      fields: { status: [`The order is ${order.status}; this needs it to be ${from.join(' or ')}.`] },
    });
  }
  return [await appendEvent(tx, order.id, 'status')];
}

const storeOwner =
  (ctx: Context): Check =>
  (order) => {
    if (order.owner_id !== requireViewer(ctx.viewer, ctx.authError).userId) throw forbidden('You do not own the store of this order.');
  };

export async function acceptOrder(ctx: Context, orderId: number) {
  requireViewer(ctx.viewer, ctx.authError);
  // The nearest free online driver is assigned in the same transaction, when there is one.
  return move(ctx, orderId, 'accept', storeOwner(ctx), {}, (tx, order) => assignDriverToOrder(tx, order.id));
}

/** `reason` is one of REJECTION_REASONS (checked on the input, RejectOrderInput). */
export async function rejectOrder(ctx: Context, orderId: number, reason: string, note?: string | null) {
  requireViewer(ctx.viewer, ctx.authError);
  return move(ctx, orderId, 'reject', storeOwner(ctx), { rejection_reason: reason, rejection_note: note?.trim() || null });
}

export async function startPreparing(ctx: Context, orderId: number) {
  requireViewer(ctx.viewer, ctx.authError);
  return move(ctx, orderId, 'startPreparing', storeOwner(ctx));
}

export async function markReady(ctx: Context, orderId: number) {
  requireViewer(ctx.viewer, ctx.authError);
  return move(ctx, orderId, 'markReady', storeOwner(ctx));
}

/** The customer may cancel while the store has not answered yet. */
export async function cancelOrder(ctx: Context, orderId: number) {
  const viewer = requireViewer(ctx.viewer, ctx.authError);
  return move(ctx, orderId, 'cancel', (order) => {
    if (order.user_id !== viewer.userId) throw notFound('Order', orderId); // another's order is "missing"
  });
}

/** Only the driver assigned to the order picks it up and delivers it; then they take the next. */
async function driverMove(ctx: Context, orderId: number, name: 'pickUp' | 'deliver') {
  const driver = await requireDriver(ctx);
  const check: Check = (order) => {
    if (order.driver_id !== driver.id) throw forbidden('This order is not assigned to you.');
  };
  return move(ctx, orderId, name, check, {}, name === 'deliver' ? (tx) => delivered(tx, orderId, driver.id) : undefined);
}

/** Counts the delivery for "popular" and "trending", then frees the driver for the next order. */
async function delivered(tx: EntityManager, orderId: number, driverId: number) {
  await tx.execute(
    `update products p set order_count = p.order_count + i.quantity
     from (select product_id, sum(quantity) as quantity from order_items where order_id = ? and product_id is not null group by product_id) i
     where p.id = i.product_id`,
    [orderId],
  );
  await tx.execute(`update stores set order_count = order_count + 1 where id = (select store_id from orders where id = ?)`, [orderId]);
  return afterDelivery(tx, driverId);
}

export const pickUpOrder = (ctx: Context, orderId: number) => driverMove(ctx, orderId, 'pickUp');
export const deliverOrder = (ctx: Context, orderId: number) => driverMove(ctx, orderId, 'deliver');

/**
 * Rejects orders their store left unanswered for `timeoutSeconds`, with a recorded reason.
 * Safe to run on every instance at once: each order is moved by one conditional UPDATE.
 */
export async function expireUnansweredOrders(em: EntityManager, pubSub: Context['services']['pubSub'], timeoutSeconds: number): Promise<number> {
  const stale = await em.execute<{ id: number }[]>(
    `select id from orders where status = 'pending_acceptance' and created_at < now() - make_interval(secs => ?) order by created_at limit 500`,
    [timeoutSeconds],
  );
  let expired = 0;
  for (const { id } of stale) {
    try {
      const events = await em.transactional((tx) =>
        transition(tx, { id, status: 'pending_acceptance' }, 'expire', { rejection_reason: TIMEOUT_REJECTION_REASON }),
      );
      publishEvents(pubSub, events);
      expired++;
    } catch (error) {
      if (!(error instanceof AppError)) throw error; // answered meanwhile: nothing to do
    }
  }
  return expired;
}
