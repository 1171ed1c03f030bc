import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { Context } from '../../context';
import { Driver } from './driver.entity';
import * as drivers from './driver.service';

@Authorized()
@Resolver()
export class DriverResolver {
  @Query(() => Driver, { description: "The caller's driver profile (403 for non-drivers)." })
  driverProfile(@Ctx() ctx: Context): Promise<Driver> {
    return drivers.requireDriver(ctx);
  }
}
