import { Arg, Authorized, Int, Resolver, Root, Subscription } from 'type-graphql';
import type { SubscribeResolverData } from 'type-graphql';
import { Context } from '../../context';
import { requireDriver } from '../drivers/driver.service';
import { OrderEventMessage } from '../orders/order-events';
import { ownedStoreIds, requireOwnedStore } from '../stores/ownership';
import { driverStream, orderStream, storesStream } from './tracking.streams';
import { OrderUpdate, toUpdate } from './tracking.types';

type Data<Args> = SubscribeResolverData<unknown, Args, Context>;

/** Every subscription needs a caller (the websocket refuses anonymous connections too). */
@Authorized()
@Resolver()
export class TrackingResolver {
  @Subscription(() => OrderUpdate, {
    description: 'Status changes and driver positions of one order, until it ends. Resume with the last seq seen.',
    subscribe: ({ args, context }: Data<{ orderId: number; afterSeq: number }>) => orderStream(context, args.orderId, args.afterSeq),
  })
  orderUpdates(
    @Root() event: OrderEventMessage,
    @Arg('orderId', () => Int) _orderId: number,
    @Arg('afterSeq', () => Int, { defaultValue: 0, description: 'The last seq the client saw.' }) _afterSeq: number,
  ): OrderUpdate {
    return toUpdate(event);
  }

  @Subscription(() => OrderUpdate, {
    description: "New and changed orders of the caller's stores (or of one of them).",
    subscribe: async ({ args, context }: Data<{ storeId?: number | null }>) =>
      storesStream(context, args.storeId != null ? [(await requireOwnedStore(context, args.storeId)).id] : await ownedStoreIds(context)),
  })
  storeOrderUpdates(@Root() event: OrderEventMessage, @Arg('storeId', () => Int, { nullable: true }) _storeId: number | null): OrderUpdate {
    return toUpdate(event);
  }

  @Subscription(() => OrderUpdate, {
    description: 'Orders assigned to the calling driver, and their changes.',
    subscribe: async ({ context }: Data<object>) => driverStream(context, (await requireDriver(context)).id),
  })
  driverOrderUpdates(@Root() event: OrderEventMessage): OrderUpdate {
    return toUpdate(event);
  }
}
