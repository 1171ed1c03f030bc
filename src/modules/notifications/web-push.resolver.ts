import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { MessagePayload } from '../../common/message-payload';
import { Context } from '../../context';
import { WebPushSubscriptionInput, WebPushSubscriptionPayload } from './web-push.types';
import * as webPush from './web-push.service';

@Authorized()
@Resolver()
export class WebPushResolver {
  @Query(() => String, {
    nullable: true,
    description: 'The VAPID public key a browser subscribes with (applicationServerKey); null when Web Push is off.',
  })
  webPushPublicKey(@Ctx() ctx: Context): string | null {
    return ctx.services.webPush?.publicKey ?? null;
  }

  @Mutation(() => WebPushSubscriptionPayload, { description: "Keeps this browser's subscription for the caller's notifications." })
  async saveWebPushSubscription(@Arg('input') input: WebPushSubscriptionInput, @Ctx() ctx: Context): Promise<WebPushSubscriptionPayload> {
    return { message: 'Web Push subscription saved.', subscription: await webPush.saveSubscription(ctx, input) };
  }

  @Mutation(() => MessagePayload, { description: "Forgets one of the caller's subscriptions, by its endpoint." })
  async deleteWebPushSubscription(@Arg('endpoint') endpoint: string, @Ctx() ctx: Context): Promise<MessagePayload> {
    await webPush.deleteSubscription(ctx, endpoint);
    return { message: 'Web Push subscription removed.' };
  }
}
