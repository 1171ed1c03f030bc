/** Saved delivery addresses: each customer reads and changes only their own (others are 404). */
import { notFound } from '../../common/errors';
import { applyPatch, trimmed } from '../../common/patch';
import { Context, viewerOf } from '../../context';
import { AddressInput, UpdateAddressInput } from './address.inputs';
import { UserAddress } from './address.entity';

export const MAX_ADDRESSES_PER_USER = 50;

export async function listAddresses(ctx: Context): Promise<UserAddress[]> {
  const viewer = viewerOf(ctx);
  return ctx.em.find(UserAddress, { user: viewer.userId }, { orderBy: { id: 'asc' }, limit: MAX_ADDRESSES_PER_USER });
}

export async function getAddress(ctx: Context, id: number): Promise<UserAddress> {
  const viewer = viewerOf(ctx);
  const address = await ctx.em.findOne(UserAddress, { id, user: viewer.userId });
  if (!address) throw notFound('UserAddress', id);
  return address;
}

export async function createAddress(ctx: Context, input: AddressInput): Promise<UserAddress> {
  const viewer = viewerOf(ctx);
  const address = ctx.em.create(UserAddress, {
    user: viewer.userId,
    label: input.label.trim(),
    line1: input.line1.trim(),
    line2: trimmed(input.line2) ?? null,
    city: trimmed(input.city) ?? null,
    latitude: input.latitude,
    longitude: input.longitude,
    instructions: trimmed(input.instructions) ?? null,
  });
  await ctx.em.flush();
  return address;
}

export async function updateAddress(ctx: Context, id: number, input: UpdateAddressInput): Promise<UserAddress> {
  const address = await getAddress(ctx, id);
  applyPatch(
    address,
    { ...input, label: trimmed(input.label), line1: trimmed(input.line1) },
    ['label', 'line1', 'line2', 'city', 'latitude', 'longitude', 'instructions'],
    ['line2', 'city', 'instructions'],
  );
  await ctx.em.flush();
  return address;
}

/** Past orders keep their own copy of the address, so deleting it changes no history. */
export async function deleteAddress(ctx: Context, id: number): Promise<void> {
  await ctx.em.removeAndFlush(await getAddress(ctx, id));
}
