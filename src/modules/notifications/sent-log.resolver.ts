/** The owner's "sent" log of an order over GraphQL (REST: preference.rest.ts). */
import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { Context } from '../../context';
import { orderNotificationLog } from './sent-log.service';
import { SentNotification } from './sent-log.types';

@Authorized()
@Resolver()
export class SentNotificationResolver {
  @Query(() => [SentNotification], { description: "The notifications of one of the caller's stores' orders, oldest first." })
  async orderNotifications(@Arg('orderId', () => Int) orderId: number, @Ctx() ctx: Context): Promise<SentNotification[]> {
    return orderNotificationLog(ctx, orderId);
  }
}
