import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Context } from '../../context';
import type { DriverState } from '../drivers/driver-positions';
import { Driver } from '../drivers/driver.entity';
import { PositionInput } from '../drivers/driver.inputs';
import * as dispatch from './dispatch.service';
import { Order } from './order.entity';

/** A driver's work on orders: availability, position, the orders they carry. */
@Authorized()
@Resolver()
export class DispatchResolver {
  @Query(() => [Order], { description: 'Orders assigned to the calling driver and not delivered yet.' })
  driverOrders(@Ctx() ctx: Context): Promise<Order[]> {
    return dispatch.driverOrders(ctx);
  }

  @Mutation(() => Driver, { description: 'Available for orders; may send a first position.' })
  goOnline(@Arg('position', () => PositionInput, { nullable: true }) position: PositionInput | null, @Ctx() ctx: Context): Promise<Driver> {
    return dispatch.setOnline(ctx, true, position ?? undefined);
  }

  @Mutation(() => Driver)
  goOffline(@Ctx() ctx: Context): Promise<Driver> {
    return dispatch.setOnline(ctx, false);
  }

  @Mutation(() => Driver, { description: 'The driver’s position; customers following their orders see it.' })
  reportDriverLocation(@Arg('position') position: PositionInput, @Ctx() ctx: Context): Promise<DriverState> {
    return dispatch.reportLocation(ctx, position.latitude, position.longitude);
  }
}
