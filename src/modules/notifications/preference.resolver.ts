import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Context } from '../../context';
import { NotificationPreferences, NotificationPreferencesInput } from './preference.types';
import * as preferences from './preference.service';

@Authorized()
@Resolver()
export class NotificationPreferenceResolver {
  @Query(() => NotificationPreferences, { description: "The caller's notification preferences (defaults until changed)." })
  async notificationPreferences(@Ctx() ctx: Context): Promise<NotificationPreferences> {
    return preferences.getPreferences(ctx);
  }

  @Mutation(() => NotificationPreferences, { description: 'Changes the fields sent; answers the whole preferences.' })
  async updateNotificationPreferences(
    @Arg('input') input: NotificationPreferencesInput,
    @Ctx() ctx: Context,
  ): Promise<NotificationPreferences> {
    return preferences.updatePreferences(ctx, input);
  }
}
