import { Arg, Authorized, Extensions, Int, Resolver, Root, Subscription } from 'type-graphql';
import type { SubscribeResolverData } from 'type-graphql';
import { Context } from '../../context';
import { SHARED_RESULT } from '../../graphql/shared-results';
import { requireDriver } from '../drivers/driver.service';
import { OrderEventMessage } from '../orders/order-events';
import { ownedStoreIds, requireOwnedStore } from '../stores/ownership';
import { driverStream, orderStream, storesStream } from './tracking.streams';
import { OrderSeqInput, OrderUpdate, toUpdate } from './tracking.types';

type Data<Args> = SubscribeResolverData<unknown, Args, Context>;

/**
 * Every subscription needs a caller (the websocket refuses anonymous connections too). Who may
 * follow what is decided in `subscribe`; an event's answer depends on the event and the
 * selection only, so it is computed once for all who share the selection (SHARED_RESULT).
 */
@Authorized()
@Resolver()
export class TrackingResolver {
  @Subscription(() => OrderUpdate, {
    description: 'Status changes and driver positions of one order, until it ends. Resume with the last seq seen.',
    subscribe: ({ args, context }: Data<{ orderId: number; afterSeq: number }>) => orderStream(context, args.orderId, args.afterSeq),
  })
  @Extensions({ [SHARED_RESULT]: true })
  orderUpdates(
    @Root() event: OrderEventMessage,
    @Arg('orderId', () => Int) _orderId: number,
    @Arg('afterSeq', () => Int, { defaultValue: 0, description: 'The last seq the client saw.' }) _afterSeq: number,
  ): OrderUpdate {
    return toUpdate(event);
  }

  @Subscription(() => OrderUpdate, {
    description:
      "New and changed orders of the caller's stores (or of one of them). Resume with afterSeqs: the last seq received of each order the board holds.",
    subscribe: async ({ args, context }: Data<{ storeId?: number | null; afterSeqs?: OrderSeqInput[] | null }>) =>
      storesStream(
        context,
        args.storeId != null ? [(await requireOwnedStore(context, args.storeId)).id] : await ownedStoreIds(context),
        args.afterSeqs,
      ),
  })
  @Extensions({ [SHARED_RESULT]: true })
  storeOrderUpdates(
    @Root() event: OrderEventMessage,
    @Arg('storeId', () => Int, { nullable: true }) _storeId: number | null,
    @Arg('afterSeqs', () => [OrderSeqInput], {
      nullable: true,
      // Checked once at subscribe (storesStream), not again for each event.
      validate: false,
      description:
        'A resume: the last seq received of each order the board holds. Sent first: the events after those, and the events of ' +
        "the stores' other orders of the last 10 minutes (new orders); then live ones, each once. Omitted: only what happens from now on.",
    })
    _afterSeqs: OrderSeqInput[] | null,
  ): OrderUpdate {
    return toUpdate(event);
  }

  @Subscription(() => OrderUpdate, {
    description: 'Orders assigned to the calling driver, and their changes.',
    subscribe: async ({ context }: Data<object>) => driverStream(context, (await requireDriver(context)).id),
  })
  @Extensions({ [SHARED_RESULT]: true })
  driverOrderUpdates(@Root() event: OrderEventMessage): OrderUpdate {
    return toUpdate(event);
  }
}
