import { Field, Float, Int, ObjectType } from 'type-graphql';
import type { PlacedOrder } from './checkout.service';
import { Order } from './order.entity';
import { CoordinateField } from '../../common/coordinate-field';

@ObjectType({ simpleResolvers: true, description: 'The delivery address as it was when the order was placed.' })
export class OrderAddress {
  @Field() label!: string;
  @Field() line1!: string;
  @Field(() => String, { nullable: true }) line2!: string | null;
  @Field(() => String, { nullable: true }) city!: string | null;
  @CoordinateField() latitude!: number;
  @CoordinateField() longitude!: number;
  @Field(() => String, { nullable: true }) instructions!: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'The driver carrying the order, with their latest position.' })
export class DriverInfo {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() phone!: string;
  @CoordinateField({ nullable: true }) latitude!: number | null;
  @CoordinateField({ nullable: true }) longitude!: number | null;
}

@ObjectType({ simpleResolvers: true })
export class TimelineEntry {
  @Field({ description: 'Always status (kept for clients that read it).' }) type!: string;
  @Field({ description: 'An order status.' }) status!: string;
  @Field(() => Date) at!: Date;
  @Field(() => Int) seq!: number;
}

/** The first answer to a checkout (the service's PlacedOrder), kept for Idempotency-Key replays. */
@ObjectType('PlacedOrder', { simpleResolvers: true })
export class PlacedOrderType implements PlacedOrder {
  @Field(() => Int) orderId!: number;
  @Field() status!: string;
  @Field(() => Float) total!: number;
}

@ObjectType({ simpleResolvers: true })
export class PlaceOrderPayload {
  @Field() message!: string;
  @Field(() => PlacedOrderType) placed!: PlacedOrder;
}

@ObjectType({ simpleResolvers: true })
export class OrderActionPayload {
  @Field() message!: string;
  @Field(() => Order) order!: Order;
}
