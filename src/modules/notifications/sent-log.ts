/**
 * The owner's "sent" log of an order: which notifications of the order went out, to whom (by
 * role), on which channel, and what became of them — never a device token or phone number.
 */
import { Arg, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { forbidden, notFound } from '../../common/errors';
import { Context, viewerOf } from '../../context';
import { KINDS } from './outbox';

@ObjectType()
export class SentNotification {
  @Field({ description: 'new_order, order_accepted, ... (the push data `type`).' })
  kind!: string;

  @Field({ description: 'customer, owner or driver.' })
  recipient!: string;

  @Field({ description: 'push, whatsapp or web_push.' })
  channel!: string;

  @Field({ description: 'pending (waiting or retrying), sent, failed (given up: see error) or skipped.' })
  status!: string;

  @Field(() => Int)
  attempts!: number;

  @Field(() => String, { nullable: true })
  error!: string | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  sentAt!: Date | null;
}

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

@Authorized()
@Resolver()
export class SentNotificationResolver {
  @Query(() => [SentNotification], { description: "The notifications of one of the caller's stores' orders, oldest first." })
  async orderNotifications(@Arg('orderId', () => Int) orderId: number, @Ctx() ctx: Context): Promise<SentNotification[]> {
    return orderNotificationLog(ctx, orderId);
  }
}
