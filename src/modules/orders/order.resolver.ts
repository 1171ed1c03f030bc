import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Context } from '../../context';
import { driverContact } from '../drivers/driver.loaders';
import { Store } from '../stores/store.entity';
import { storeById } from '../stores/store.loaders';
import { CheckoutInput } from './checkout.inputs';
import { placeOrder } from './checkout.service';
import * as lifecycle from './order-lifecycle.service';
import { RejectOrderInput } from './order.inputs';
import { Order, OrderItem, OrderItemExtra } from './order.entity';
import { extrasOfItem, itemsOfOrder, timelineEventsOfOrder } from './order.loaders';
import * as orders from './order.service';
import { DriverInfo, OrderActionPayload, OrderAddress, PlaceOrderPayload, TimelineEntry } from './order.types';

type Move = (ctx: Context, id: number) => Promise<Order>;

async function act(ctx: Context, id: number, run: Move, message: string): Promise<OrderActionPayload> {
  return { message, order: await run(ctx, id) };
}

@Authorized()
@Resolver()
export class OrderResolver {
  @Mutation(() => PlaceOrderPayload, {
    description: 'Checkout (spec §4.3). A retry with the same idempotencyKey answers the first result.',
  })
  async placeOrder(
    // Validated by the service, with the checks that need the database (all problems at once).
    @Arg('input', { validate: false }) input: CheckoutInput,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<PlaceOrderPayload> {
    return { message: 'Order placed successfully.', placed: await placeOrder(ctx, input, idempotencyKey) };
  }

  @Query(() => [Order], { description: "The caller's orders, newest first (at most 100)." })
  async myOrders(@Ctx() ctx: Context): Promise<Order[]> {
    return orders.listCustomerOrders(ctx);
  }

  @Query(() => Order, { description: "One of the caller's orders." })
  async myOrder(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<Order> {
    return orders.getCustomerOrder(ctx, id);
  }

  @Query(() => [Order], { description: "Orders of the caller's stores (or one of them), newest first." })
  async storeOrders(
    @Arg('storeId', () => Int, { nullable: true }) storeId: number | null,
    @Arg('status', () => String, { nullable: true }) status: string | null,
    @Ctx() ctx: Context,
  ): Promise<Order[]> {
    return orders.listStoreOrders(ctx, storeId, status);
  }

  @Mutation(() => OrderActionPayload, { description: 'The customer cancels an order the store has not answered yet.' })
  cancelOrder(@Arg('id', () => Int) id: number, @Ctx() ctx: Context) {
    return act(ctx, id, lifecycle.cancelOrder, 'Order cancelled.');
  }

  @Mutation(() => OrderActionPayload)
  acceptOrder(@Arg('id', () => Int) id: number, @Ctx() ctx: Context) {
    return act(ctx, id, lifecycle.acceptOrder, 'Order accepted.');
  }

  @Mutation(() => OrderActionPayload)
  async rejectOrder(@Arg('id', () => Int) id: number, @Arg('input') input: RejectOrderInput, @Ctx() ctx: Context) {
    return act(ctx, id, (c, i) => lifecycle.rejectOrder(c, i, input.rejectionReason, input.rejectionNote), 'Order rejected.');
  }

  @Mutation(() => OrderActionPayload)
  startPreparingOrder(@Arg('id', () => Int) id: number, @Ctx() ctx: Context) {
    return act(ctx, id, lifecycle.startPreparing, 'Order is being prepared.');
  }

  @Mutation(() => OrderActionPayload)
  markOrderReady(@Arg('id', () => Int) id: number, @Ctx() ctx: Context) {
    return act(ctx, id, lifecycle.markReady, 'Order is ready for pickup.');
  }

  @Mutation(() => OrderActionPayload)
  pickUpOrder(@Arg('id', () => Int) id: number, @Ctx() ctx: Context) {
    return act(ctx, id, lifecycle.pickUpOrder, 'Order picked up.');
  }

  @Mutation(() => OrderActionPayload, {
    description:
      'The driver hands the order over. collectCash: they took the total in cash (required when the card holds no money, refused when it does).',
  })
  deliverOrder(
    @Arg('id', () => Int) id: number,
    @Arg('collectCash', () => Boolean, { nullable: true }) collectCash: boolean | null,
    @Ctx() ctx: Context,
  ) {
    return act(ctx, id, (c, i) => lifecycle.deliverOrder(c, i, collectCash ?? false), 'Order delivered.');
  }
}

@Resolver(() => Order)
export class OrderFieldsResolver {
  @FieldResolver(() => Store)
  async store(@Root() order: Order, @Ctx() ctx: Context): Promise<Store> {
    return (await storeById(ctx).load(order.store.id))!;
  }

  @FieldResolver(() => [OrderItem])
  items(@Root() order: Order, @Ctx() ctx: Context): Promise<OrderItem[]> {
    return itemsOfOrder(ctx).load(order.id);
  }

  @FieldResolver(() => [TimelineEntry], {
    description: "One entry per order status reached, with the server time, in sequence (the payment's history is payment.events).",
  })
  async timeline(@Root() order: Order, @Ctx() ctx: Context): Promise<TimelineEntry[]> {
    return (await timelineEventsOfOrder(ctx).load(order.id)).map((e) => ({ type: e.type, status: e.status, at: e.createdAt, seq: e.seq }));
  }

  @FieldResolver(() => DriverInfo, { nullable: true })
  driver(@Root() order: Order, @Ctx() ctx: Context): Promise<DriverInfo | null> | null {
    return order.driver ? driverContact(ctx).load(order.driver.id) : null;
  }

  @FieldResolver(() => OrderAddress)
  deliveryAddress(@Root() order: Order): OrderAddress {
    return {
      label: order.addressLabel,
      line1: order.addressLine1,
      line2: order.addressLine2 ?? null,
      city: order.addressCity ?? null,
      latitude: order.addressLatitude,
      longitude: order.addressLongitude,
      instructions: order.addressInstructions ?? null,
    };
  }
}

@Resolver(() => OrderItem)
export class OrderItemFieldsResolver {
  @FieldResolver(() => [OrderItemExtra], { description: 'Chosen ProductOptionValues.' })
  async options(@Root() item: OrderItem, @Ctx() ctx: Context): Promise<OrderItemExtra[]> {
    return (await extrasOfItem(ctx).load(item.id)).filter((e) => e.kind === 'option');
  }

  @FieldResolver(() => [OrderItemExtra], { description: 'Added ProductSupplements.' })
  async supplements(@Root() item: OrderItem, @Ctx() ctx: Context): Promise<OrderItemExtra[]> {
    return (await extrasOfItem(ctx).load(item.id)).filter((e) => e.kind === 'supplement');
  }
}
