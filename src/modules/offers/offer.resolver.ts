import { Arg, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { MessagePayload } from '../../common/message-payload';
import { Context } from '../../context';
import { CreateOfferInput, UpdateOfferInput } from './offer.inputs';
import { Offer } from './offer.entity';
import * as offers from './offer.service';

@ObjectType()
export class OfferPayload {
  @Field()
  message!: string;

  @Field(() => Offer)
  offer!: Offer;
}

@Resolver()
export class OfferResolver {
  @Query(() => [Offer], { description: 'Active offers, of one store or platform-wide (at most 100, newest first).' })
  async offers(@Arg('storeId', () => Int, { nullable: true }) storeId: number | null, @Ctx() ctx: Context): Promise<Offer[]> {
    return offers.listActiveOffers(ctx, storeId);
  }

  @Query(() => Offer, { description: 'One offer by its public token.' })
  async offer(@Arg('token') token: string, @Ctx() ctx: Context): Promise<Offer> {
    return offers.getOfferByToken(ctx, token);
  }

  @Authorized()
  @Mutation(() => OfferPayload)
  async createOffer(@Arg('input') input: CreateOfferInput, @Ctx() ctx: Context): Promise<OfferPayload> {
    return { message: 'Offer created.', offer: await offers.createOffer(ctx, input) };
  }

  @Authorized()
  @Mutation(() => OfferPayload)
  async updateOffer(@Arg('id', () => Int) id: number, @Arg('input') input: UpdateOfferInput, @Ctx() ctx: Context): Promise<OfferPayload> {
    return { message: 'Offer updated.', offer: await offers.updateOffer(ctx, id, input) };
  }

  @Authorized()
  @Mutation(() => MessagePayload)
  async deleteOffer(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<MessagePayload> {
    await offers.deleteOffer(ctx, id);
    return { message: 'Offer deleted.' };
  }
}
