import { Field, Int, ObjectType } from 'type-graphql';
import { PlacedOrder } from './checkout.service';
import { Order } from './order.entity';
import { CoordinateField } from '../../common/coordinate-field';

@ObjectType({ description: 'The delivery address as it was when the order was placed.' })
export class OrderAddress {
  @Field() label!: string;
  @Field() line1!: string;
  @Field(() => String, { nullable: true }) line2!: string | null;
  @Field(() => String, { nullable: true }) city!: string | null;
  @CoordinateField() latitude!: number;
  @CoordinateField() longitude!: number;
  @Field(() => String, { nullable: true }) instructions!: string | null;
}

@ObjectType({ description: 'The driver carrying the order, with their latest position.' })
export class DriverInfo {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() phone!: string;
  @CoordinateField({ nullable: true }) latitude!: number | null;
  @CoordinateField({ nullable: true }) longitude!: number | null;
}

@ObjectType()
export class TimelineEntry {
  @Field() status!: string;
  @Field(() => Date) at!: Date;
}

@ObjectType({ description: 'One change of an order, as streamed to subscribers.' })
export class OrderUpdate {
  @Field(() => Int) orderId!: number;
  @Field(() => Int, { description: 'Per-order sequence number: resume with afterSeq.' }) seq!: number;
  @Field({ description: 'status, driver_assigned or driver_location' }) type!: string;
  @Field({ description: 'The order status after this change.' }) status!: string;
  @Field(() => Date) at!: Date;
  @Field(() => Int, { nullable: true }) driverId!: number | null;
  @CoordinateField({ nullable: true }) latitude!: number | null;
  @CoordinateField({ nullable: true }) longitude!: number | null;
}

@ObjectType()
export class PlaceOrderPayload {
  @Field() message!: string;
  @Field(() => PlacedOrder) placed!: PlacedOrder;
}

@ObjectType()
export class OrderActionPayload {
  @Field() message!: string;
  @Field(() => Order) order!: Order;
}
