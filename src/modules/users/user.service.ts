import { createHash } from 'node:crypto';
import { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../common/errors';
import { Context } from '../../context';
import { User } from './user.entity';

export async function findUserByPhone(ctx: Context, phoneNumber: string): Promise<User | null> {
  return ctx.em.findOne(User, { phoneNumber });
}

export async function getUser(ctx: Context, id: number): Promise<User> {
  const user = await ctx.em.findOne(User, { id });
  if (!user) throw notFound('User', id);
  return user;
}

/** A user's devices beyond this many lose their push token, the least recently signed in first (as Web Push's browsers). */
export const MAX_PUSH_DEVICES_PER_USER = 10;

/**
 * Remembers the device a user signed in from: its latest push token, its language (for
 * notification texts) and the token issued to it (so that logout forgets its push token).
 * A push token belongs to one device of one user: whoever held it before loses it (a phone
 * passed on never receives its former user's orders). A push token sent without a device id
 * (both are optional, spec §4.1) names the device itself: it is kept under `token:` and the
 * token's SHA-256, so the same token signing in again finds its row. A step of the caller's
 * transaction.
 */
export async function rememberDevice(
  tx: EntityManager,
  userId: number,
  device: { deviceId?: string | null; pushToken?: string | null; locale?: string | null; tokenId?: string | null },
): Promise<void> {
  const pushToken = device.pushToken || null; // an empty one is none
  const deviceId = device.deviceId || (pushToken ? tokenDeviceId(pushToken) : null);
  if (!deviceId) return;
  if (pushToken) {
    await tx.execute(`update user_devices set push_token = null where push_token = ? and not (user_id = ? and device_id = ?)`, [
      pushToken,
      userId,
      deviceId,
    ]);
  }
  await tx.execute(
    `insert into user_devices (user_id, device_id, push_token, locale, token_id, last_seen_at) values (?, ?, ?, ?, ?, now())
     on conflict (user_id, device_id) do update
       set push_token = coalesce(excluded.push_token, user_devices.push_token),
           locale = coalesce(excluded.locale, user_devices.locale),
           token_id = coalesce(excluded.token_id, user_devices.token_id), last_seen_at = now()`,
    [userId, deviceId, pushToken, device.locale ?? null, device.tokenId ?? null],
  );
  if (pushToken) {
    // Each order message is one push per device with a token: the devices signed in from last keep theirs.
    await tx.execute(
      `update user_devices set push_token = null where user_id = ? and push_token is not null and id not in (
         select id from user_devices where user_id = ? and push_token is not null order by last_seen_at desc, id desc limit ?)`,
      [userId, userId, MAX_PUSH_DEVICES_PER_USER],
    );
  }
}

/** The device id of a device known by its push token only. */
const tokenDeviceId = (pushToken: string) => `token:${createHash('sha256').update(pushToken).digest('base64url')}`;

/** Logout: the device signed in with this token stops receiving pushes. */
export async function forgetDevicePushToken(em: EntityManager, userId: number, tokenId: string): Promise<void> {
  await em.execute(`update user_devices set push_token = null where user_id = ? and token_id = ?`, [userId, tokenId]);
}
