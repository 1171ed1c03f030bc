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

/** Remembers the device a user signed in from (and its latest push token); a step of the caller's transaction. */
export async function rememberDevice(
  tx: EntityManager,
  userId: number,
  device: { deviceId?: string | null; pushToken?: string | null },
): Promise<void> {
  if (!device.deviceId) return;
  await tx.execute(
    `insert into user_devices (user_id, device_id, push_token, last_seen_at) values (?, ?, ?, now())
     on conflict (user_id, device_id) do update
       set push_token = coalesce(excluded.push_token, user_devices.push_token), last_seen_at = now()`,
    [userId, device.deviceId, device.pushToken ?? null],
  );
}
