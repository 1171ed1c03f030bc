/**
 * Moves orders along the state machine of order-status.ts. Each move is one conditional
 * UPDATE (status must still be one the transition starts from) plus its event, in one
 * transaction: of two racing moves (accept vs reject) exactly one wins, the other gets 422.
 * Who may make a move is the transition's `by`, checked here and nowhere else.
 * The order's payment follows in the same transaction (payments/payment-lifecycle.ts); the
 * payment provider is called only after commit.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { AppError, forbidden, notFound } from '../../common/errors';
import type { Logger } from '../../common/logger';
import type { DeliveryChoice, OrderPayments } from '../../common/order-payments';
import { Context, viewerOf } from '../../context';
import { countDeliveredProducts } from '../catalog/product-query';
import { requireDriver } from '../drivers/driver.service';
import { countDeliveredOrder } from '../stores/store.service';
import { afterDelivery, assignDriverToOrder } from './dispatch.service';
import { appendEvent, OrderEventMessage, publishEvents } from './order-events';
import { Actor, TIMEOUT_REJECTION_REASON, TRANSITIONS, TransitionName } from './order-status';
import { Order, OrderRow } from './order.entity';

/** The order as a move sees it: who its customer, store owner and driver are. */
interface OrderParties {
  id: number;
  status: string;
  user_id: number;
  store_id: number;
  owner_id: number | null;
  driver_id: number | null;
}

/** Work done in the move's transaction after the status changed; may change the order again. */
type After = (tx: EntityManager, order: OrderParties) => Promise<{ events: OrderEventMessage[]; row?: OrderRow }>;

/**
 * Throws unless the caller is the transition's actor for this order: the customer (another's
 * order is "missing", 404), the store's owner (403) or the assigned driver (403).
 */
async function actorCheck(ctx: Context, by: Actor): Promise<(order: OrderParties) => void> {
  if (by === 'system') throw forbidden('Only the platform makes this move.');
  if (by === 'driver') {
    const driver = await requireDriver(ctx); // 403 for non-drivers, before the order is looked up
    return (order) => {
      if (order.driver_id !== driver.id) throw forbidden('This order is not assigned to you.');
    };
  }
  const viewer = viewerOf(ctx);
  if (by === 'customer') {
    return (order) => {
      if (order.user_id !== viewer.userId) throw notFound('Order', order.id);
    };
  }
  return (order) => {
    if (order.owner_id !== viewer.userId) throw forbidden('You do not own the store of this order.');
  };
}

/** Runs `name` on the order for the caller; answers the order as the transaction left it. */
async function move(
  ctx: Context,
  orderId: number,
  name: TransitionName,
  set: Record<string, unknown> = {},
  after?: After,
  choice: DeliveryChoice = {},
): Promise<Order> {
  const check = await actorCheck(ctx, TRANSITIONS[name].by);
  const currency = ctx.services.config.payments.currency;
  const { events, row, settle } = await ctx.em.transactional(async (tx) => {
    const [order] = await tx.execute<OrderParties[]>(
      `select o.id, o.status, o.user_id, o.store_id, s.owner_id, o.driver_id
       from orders o join stores s on s.id = o.store_id where o.id = ?`,
      [orderId],
    );
    if (!order) throw notFound('Order', orderId);
    check(order);
    const moved = await transition(tx, ctx.services.orderPayments, order, name, set, currency, ctx.logger, choice);
    const then = after ? await after(tx, order) : { events: [] };
    return { events: [...moved.events, ...then.events], row: then.row ?? moved.row, settle: moved.settle };
  });
  publishEvents(ctx.services.pubSub, events);
  await ctx.services.orderPayments.settle(ctx.em, ctx.logger, settle);
  // The raw UPDATE bypassed the unit of work: its RETURNING row refreshes the identity map.
  return ctx.em.map(Order, row);
}

/**
 * The conditional UPDATE, its event and the payment's part; 422 when the order is no longer in
 * a `from` status. `settle` lists the payments to take to their provider after commit.
 */
async function transition(
  tx: EntityManager,
  payments: OrderPayments,
  order: { id: number; status: string },
  name: TransitionName,
  set: Record<string, unknown>,
  currency: string,
  logger: Logger,
  choice: DeliveryChoice = {},
) {
  const { from, to } = TRANSITIONS[name];
  const columns = Object.keys(set); // column names come from this module's code, never from input
  const [row] = await tx.execute<OrderRow[]>(
    `update orders set status = ?, updated_at = now()${columns.map((c) => `, ${c} = ?`).join('')}
     where id = ? and status in (?) returning *`,
    [to, ...Object.values(set), order.id, from],
  );
  if (!row) throw await notMovable(tx, order, from, to);
  // The payment's part first: the status event is then the move's last, and a final one ends the order's stream.
  const payment = await payments.onTransition(tx, order.id, name, currency, logger, choice);
  const events = [await appendEvent(tx, order.id, 'status')];
  // The payments module writes order events through order-events.ts: they are this module's messages.
  return { row, events: [...(payment.events as OrderEventMessage[]), ...events], settle: payment.settle };
}

/**
 * The 422 of a move whose UPDATE matched no row. When the status read was one the move starts
 * from, the row moved on between that read and the UPDATE (a racing move won): say so, with the
 * status it has now.
 */
async function notMovable(tx: EntityManager, order: { id: number; status: string }, from: readonly string[], to: string) {
  const needs = `this needs it to be ${from.join(' or ')}.`;
  let detail = `The order is ${order.status}; ${needs}`;
  if (from.includes(order.status)) {
    const [now] = await tx.execute<{ status: string }[]>(`select status from orders where id = ?`, [order.id]);
    detail = `The order moved on meanwhile: it is now ${now?.status ?? 'gone'}; ${needs}`;
  }
  return new AppError('VALIDATION', `The order cannot be moved to ${to} from its current status.`, { fields: { status: [detail] } });
}

/** The nearest free online driver is assigned in the same transaction, when there is one. */
export const acceptOrder = (ctx: Context, orderId: number) =>
  move(ctx, orderId, 'accept', {}, (tx, order) => assignDriverToOrder(tx, order.id));

/** `reason` is one of REJECTION_REASONS (checked on the input, RejectOrderInput). */
export const rejectOrder = (ctx: Context, orderId: number, reason: string, note?: string | null) =>
  move(ctx, orderId, 'reject', { rejection_reason: reason, rejection_note: note?.trim() || null });

export const startPreparing = (ctx: Context, orderId: number) => move(ctx, orderId, 'startPreparing');
export const markReady = (ctx: Context, orderId: number) => move(ctx, orderId, 'markReady');

/** The customer may cancel while the store has not answered yet. */
export const cancelOrder = (ctx: Context, orderId: number) => move(ctx, orderId, 'cancel');

/** Only the driver assigned to the order picks it up and delivers it; then they take the next. */
export const pickUpOrder = (ctx: Context, orderId: number) => move(ctx, orderId, 'pickUp');
/** `collectCash`: the driver states they took the total in cash (needed when the card holds no money). */
export const deliverOrder = (ctx: Context, orderId: number, collectCash = false) =>
  move(ctx, orderId, 'deliver', {}, (tx, order) => delivered(tx, order), { collectCash });

/** Counts the delivery for "popular" and "trending", then frees the driver for the next order. */
async function delivered(tx: EntityManager, order: OrderParties) {
  const quantities = await tx.execute<{ productId: number; quantity: number }[]>(
    `select product_id as "productId", sum(quantity)::int as quantity
     from order_items where order_id = ? and product_id is not null group by product_id order by product_id`,
    [order.id],
  );
  await countDeliveredProducts(tx, quantities);
  await countDeliveredOrder(tx, order.store_id);
  return { events: await afterDelivery(tx, order.driver_id) };
}

/**
 * Rejects orders their store left unanswered for `timeoutSeconds`, with a recorded reason.
 * Safe to run on every instance at once: each order is moved by one conditional UPDATE.
 */
export async function expireUnansweredOrders(
  em: EntityManager,
  services: Pick<Context['services'], 'pubSub' | 'orderPayments' | 'config'>,
  logger: Logger,
  timeoutSeconds: number,
): Promise<number> {
  const { from } = TRANSITIONS.expire;
  const stale = await em.execute<{ id: number }[]>(
    `select id from orders where status in (?) and created_at < now() - make_interval(secs => ?) order by created_at limit 500`,
    [from, timeoutSeconds],
  );
  let expired = 0;
  for (const { id } of stale) {
    try {
      const { events, settle } = await em.transactional((tx) =>
        transition(
          tx,
          services.orderPayments,
          { id, status: from[0] },
          'expire',
          { rejection_reason: TIMEOUT_REJECTION_REASON },
          services.config.payments.currency,
          logger,
        ),
      );
      publishEvents(services.pubSub, events);
      await services.orderPayments.settle(em, logger, settle);
      expired++;
    } catch (error) {
      if (!(error instanceof AppError)) throw error; // answered meanwhile: nothing to do
    }
  }
  return expired;
}
