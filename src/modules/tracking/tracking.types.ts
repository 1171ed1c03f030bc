import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { CoordinateField } from '../../common/coordinate-field';
import { OrderEventMessage } from '../orders/order-events';

@ObjectType({ simpleResolvers: true, description: 'One change of an order, as streamed to subscribers.' })
export class OrderUpdate {
  @Field(() => Int) orderId!: number;
  @Field(() => Int, { description: 'Per-order sequence number: resume with afterSeq.' }) seq!: number;
  @Field({ description: 'status, driver_assigned, driver_location or payment' }) type!: string;
  @Field({ description: 'The order status after this change.' }) status!: string;
  @Field(() => Date) at!: Date;
  @Field(() => Int, { nullable: true }) driverId!: number | null;
  @CoordinateField({ nullable: true }) latitude!: number | null;
  @CoordinateField({ nullable: true }) longitude!: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'For payment events: the payment status after it (authorized, failed, captured, released, refunded...).',
  })
  paymentStatus!: string | null;
}

/** An event as subscribers see it: its data's driver and position lifted to fields. */
export function toUpdate(event: OrderEventMessage): OrderUpdate {
  const data = event.data ?? {};
  return {
    orderId: event.orderId,
    seq: event.seq,
    type: event.type,
    status: event.status,
    at: new Date(event.at),
    driverId: typeof data.driverId === 'number' ? data.driverId : event.driverId,
    latitude: typeof data.latitude === 'number' ? data.latitude : null,
    longitude: typeof data.longitude === 'number' ? data.longitude : null,
    paymentStatus: typeof data.paymentStatus === 'string' ? data.paymentStatus : null,
  };
}

/**
 * A board's resume point for one order: the last seq it received of that order. Checked once,
 * at subscribe (tracking.streams.ts `storesStream`), not by validators: they would run again
 * for each event, and a shared result is executed for one subscriber on behalf of all.
 */
@InputType({ description: "The last seq a board received of one order (storeOrderUpdates' afterSeqs)." })
export class OrderSeqInput {
  @Field(() => Int, { description: 'An order id, 1 or more.' }) orderId!: number;
  @Field(() => Int, { description: '0 or more.' }) seq!: number;
}
