import { Arg, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Context } from '../../context';
import { Order } from '../orders/order.entity';
import { PaymentMethod } from './payment-method.entity';
import { StartPaymentInput } from './payment.inputs';
import { eventsOfPayment, latestPaymentOfOrder, paymentMethodById } from './payment.loaders';
import { listPaymentMethods, startPayment } from './payment.service';
import { OrderPaymentType, PaymentEventType, StartPaymentPayload } from './payment.types';

@Resolver()
export class PaymentResolver {
  @Query(() => [PaymentMethod], { description: 'Active, supported payment methods in display order (spec §4.4).' })
  paymentMethods(@Ctx() ctx: Context): Promise<PaymentMethod[]> {
    return listPaymentMethods(ctx);
  }

  @Authorized()
  @Mutation(() => StartPaymentPayload, {
    description: 'Starts paying one of your orders (spec §4.4). A retry with the same idempotencyKey answers the first result.',
  })
  async startPayment(
    @Arg('input') input: StartPaymentInput,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<StartPaymentPayload> {
    const { methodId, ...start } = await startPayment(ctx, input.orderId, input.paymentMethodId, idempotencyKey);
    const method = (await paymentMethodById(ctx).load(methodId))!;
    return {
      message: start.nextAction === 'none' ? 'Payment recorded.' : 'Confirm the payment with your card.',
      payment: { ...start, method },
    };
  }
}

@Resolver(() => Order)
export class OrderPaymentFieldsResolver {
  @FieldResolver(() => OrderPaymentType, {
    nullable: true,
    description: 'The latest payment attempt; null when none was started (cash on delivery).',
  })
  payment(@Root() order: Order, @Ctx() ctx: Context): Promise<OrderPaymentType | null> {
    return latestPaymentOfOrder(ctx).load(order.id);
  }
}

@Resolver(() => OrderPaymentType)
export class OrderPaymentHistoryResolver {
  @FieldResolver(() => [PaymentEventType], {
    description: "The payment's history (authorised, captured, released, refunded...), oldest first.",
  })
  events(@Root() payment: OrderPaymentType, @Ctx() ctx: Context): Promise<PaymentEventType[]> {
    return eventsOfPayment(ctx).load(payment.id);
  }
}
