import { Arg, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { MessagePayload } from '../../common/message-payload';
import { Context } from '../../context';
import { AddressInput, UpdateAddressInput } from './address.inputs';
import { UserAddress } from './address.entity';
import * as addresses from './address.service';

@ObjectType({ simpleResolvers: true })
export class AddressPayload {
  @Field()
  message!: string;

  @Field(() => UserAddress)
  address!: UserAddress;
}

@Authorized()
@Resolver()
export class AddressResolver {
  @Query(() => [UserAddress], { description: "The caller's saved delivery addresses." })
  async addresses(@Ctx() ctx: Context): Promise<UserAddress[]> {
    return addresses.listAddresses(ctx);
  }

  @Query(() => UserAddress)
  async address(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<UserAddress> {
    return addresses.getAddress(ctx, id);
  }

  @Mutation(() => AddressPayload)
  async createAddress(@Arg('input') input: AddressInput, @Ctx() ctx: Context): Promise<AddressPayload> {
    return { message: 'Address saved.', address: await addresses.createAddress(ctx, input) };
  }

  @Mutation(() => AddressPayload)
  async updateAddress(
    @Arg('id', () => Int) id: number,
    @Arg('input') input: UpdateAddressInput,
    @Ctx() ctx: Context,
  ): Promise<AddressPayload> {
    return { message: 'Address updated.', address: await addresses.updateAddress(ctx, id, input) };
  }

  @Mutation(() => MessagePayload)
  async deleteAddress(@Arg('id', () => Int) id: number, @Ctx() ctx: Context): Promise<MessagePayload> {
    await addresses.deleteAddress(ctx, id);
    return { message: 'Address deleted.' };
  }
}
