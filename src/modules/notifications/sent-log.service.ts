/**
 * The owner's "sent" log of an order: which notifications of the order went out, to whom (by
 * role), on which channel, and what became of them — never a device token or phone number.
 */
import { forbidden, notFound } from '../../common/errors';
import { Context, viewerOf } from '../../context';
import { KINDS } from './outbox';
import { SentNotification } from './sent-log.types';

export async function orderNotificationLog(ctx: Context, orderId: number): Promise<SentNotification[]> {
  const viewer = viewerOf(ctx);
  const [order] = await ctx.em.execute<{ owner_id: number | null }[]>(
    `select s.owner_id from orders o join stores s on s.id = o.store_id where o.id = ?`,
    [orderId],
  );
  if (!order) throw notFound('Order', orderId);
  if (order.owner_id !== viewer.userId) throw forbidden('You do not own the store of this order.');
  const rows = await ctx.em.execute<
    {
      kind: keyof typeof KINDS;
      channel: string;
      status: string;
      attempts: number;
      last_error: string | null;
      created_at: Date;
      sent_at: Date | null;
    }[]
  >(`select kind, channel, status, attempts, last_error, created_at, sent_at from notification_outbox where order_id = ? order by id`, [
    orderId,
  ]);
  return rows.map((r) => ({
    kind: r.kind,
    recipient: KINDS[r.kind] ?? 'unknown',
    channel: r.channel,
    status: r.status,
    attempts: r.attempts,
    error: r.status === 'sent' ? null : r.last_error,
    createdAt: new Date(r.created_at),
    sentAt: r.sent_at ? new Date(r.sent_at) : null,
  }));
}
