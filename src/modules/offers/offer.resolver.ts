import { Arg, Authorized, Ctx, Field, FieldResolver, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { MessagePayload } from '../../common/message-payload';
import { Context } from '../../context';
import { Store } from '../stores/store.entity';
import { CreateOfferInput, UpdateOfferInput } from './offer.inputs';
import { activeOffersOfStore } from './offer.loaders';
import { Offer } from './offer.entity';
import * as offers from './offer.service';

@ObjectType({ simpleResolvers: true })
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

/** A store's offers: the offers module adds them to the store (stores know nothing of offers). */
@Resolver(() => Store)
export class StoreOffersFieldResolver {
  @FieldResolver(() => [Offer], { description: "The store's own active offers." })
  offers(@Root() store: Store, @Ctx() ctx: Context): Offer[] | Promise<Offer[]> {
    // Store details prime them (store-details.service.ts): answered without a promise, as the card fields are.
    const loader = activeOffersOfStore(ctx);
    return loader.primed(store.id) ?? loader.load(store.id);
  }

  @FieldResolver(() => Int, { description: 'Active offers of the store right now.' })
  async activeOfferCount(@Root() store: Store, @Ctx() ctx: Context): Promise<number> {
    return (await activeOffersOfStore(ctx).load(store.id)).length;
  }
}
