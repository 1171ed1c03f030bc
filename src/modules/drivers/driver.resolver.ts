import { Arg, Authorized, Ctx, Field, Float, InputType, Mutation, Query, Resolver } from 'type-graphql';
import { Max, Min } from 'class-validator';
import { Context } from '../../context';
import { Order } from '../orders/order.entity';
import { Driver } from './driver.entity';
import * as drivers from './driver.service';

@InputType()
export class PositionInput {
  @Field(() => Float)
  @Min(-90)
  @Max(90)
  latitude!: number;

  @Field(() => Float)
  @Min(-180)
  @Max(180)
  longitude!: number;
}

@Authorized()
@Resolver()
export class DriverResolver {
  @Query(() => Driver, { description: "The caller's driver profile (403 for non-drivers)." })
  driverProfile(@Ctx() ctx: Context): Promise<Driver> {
    return drivers.requireDriver(ctx);
  }

  @Query(() => [Order], { description: 'Orders assigned to the calling driver and not delivered yet.' })
  driverOrders(@Ctx() ctx: Context): Promise<Order[]> {
    return drivers.driverOrders(ctx);
  }

  @Mutation(() => Driver, { description: 'Available for orders; may send a first position.' })
  goOnline(@Arg('position', () => PositionInput, { nullable: true }) position: PositionInput | null, @Ctx() ctx: Context): Promise<Driver> {
    return drivers.setOnline(ctx, true, position ?? undefined);
  }

  @Mutation(() => Driver)
  goOffline(@Ctx() ctx: Context): Promise<Driver> {
    return drivers.setOnline(ctx, false);
  }

  @Mutation(() => Driver, { description: 'The driver’s position; customers following their orders see it.' })
  reportDriverLocation(@Arg('position') position: PositionInput, @Ctx() ctx: Context): Promise<Driver> {
    return drivers.reportLocation(ctx, position.latitude, position.longitude);
  }
}
