/**
 * Customer phone sign-in (spec §4.1): send-otp -> verify-otp -> complete-profile for new
 * users; me and logout for signed-in ones. REST and GraphQL both land here.
 */
import { createHash, randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, conflict, forbidden, invalidField } from '../../common/errors';
import { normalizePhone } from '../../common/phone';
import { Context, viewerOf } from '../../context';
import { User } from '../users/user.entity';
import { findUserByPhone, forgetDevicePushToken, getUser, rememberDevice } from '../users/user.service';
import { consumeCode, issueCode, withdrawCode } from './otp.service';
import { IssuedToken, issueToken, revokeToken } from './token.service';

export interface CodeSent {
  phoneNumber: string;
  expiresIn: number;
  resendIn: number;
}

/** The answer of verify-otp and complete-profile. */
export interface Session {
  userExists: boolean;
  phoneNumber: string;
  token: IssuedToken | null;
  user: User | null;
  /** A new phone only: what complete-profile needs to register it, and for how many seconds. */
  registration?: { token: string; expiresIn: number };
}

export interface DeviceInput {
  deviceId?: string | null;
  pushToken?: string | null;
}

export async function sendOtp(ctx: Context, rawPhone: string): Promise<CodeSent> {
  const config = ctx.services.config.otp;
  const phoneNumber = normalize(ctx, rawPhone);
  const issued = await issueCode(ctx, phoneNumber);
  if (!config.testNumbers.has(phoneNumber)) {
    try {
      await ctx.services.sender.sendCode(phoneNumber, issued.code);
    } catch (error) {
      ctx.logger.error({ err: error, phoneNumber }, 'sending the one-time code failed');
      await withdrawCode(ctx, phoneNumber, issued);
      throw new AppError('UPSTREAM_FAILED', 'The verification code could not be sent. Please try again later.');
    }
  }
  return { phoneNumber, expiresIn: config.ttlSeconds, resendIn: config.resendCooldownSeconds };
}

export async function verifyOtp(ctx: Context, input: { phoneNumber: string; verificationCode: string } & DeviceInput): Promise<Session> {
  const phoneNumber = normalize(ctx, input.phoneNumber);
  await consumeCode(ctx, phoneNumber, input.verificationCode.trim());
  const user = await findUserByPhone(ctx, phoneNumber);
  if (user) {
    const token = issueToken(ctx, user.id);
    await rememberDevice(ctx.em, user.id, { ...input, locale: ctx.locale, tokenId: token.tokenId });
    return { userExists: true, phoneNumber, token, user };
  }
  // The phone is proven to this caller: only the holder of this token may register it, once,
  // within the verification window. A later verification replaces the token.
  const registrationToken = randomBytes(32).toString('base64url');
  const expiresIn = ctx.services.config.otp.verificationTtlSeconds;
  await ctx.em.execute(
    `insert into phone_verifications (phone_number, expires_at, token_hash, used_at)
     values (?, now() + make_interval(secs => ?), ?, null)
     on conflict (phone_number) do update
       set expires_at = excluded.expires_at, token_hash = excluded.token_hash, used_at = null`,
    [phoneNumber, expiresIn, sha256(registrationToken)],
  );
  return { userExists: false, phoneNumber, token: null, user: null, registration: { token: registrationToken, expiresIn } };
}

export async function completeProfile(
  ctx: Context,
  input: { phoneNumber: string; firstName: string; lastName: string; registrationToken?: string | null } & DeviceInput,
): Promise<Session> {
  const phoneNumber = normalize(ctx, input.phoneNumber);
  // The token is checked before existence so that this path cannot probe who is registered.
  const notVerified = forbidden('The phone number has not been verified.');
  const token = input.registrationToken?.trim();
  if (!token) throw notVerified;
  const tokenHash = sha256(token);
  const [verification] = await ctx.em.execute<{ used: boolean }[]>(
    `select used_at is not null as used from phone_verifications where phone_number = ? and token_hash = ? and expires_at > now()`,
    [phoneNumber, tokenHash],
  );
  if (!verification) throw notVerified;
  const exists = conflict('A user with this phone number already exists.');
  // A spent token registered this phone already: a double-submitted form, not a stranger.
  if (verification.used || (await findUserByPhone(ctx, phoneNumber))) throw exists;
  try {
    let token: IssuedToken | undefined;
    const user = await ctx.em.transactional(async (tx) => {
      const spent = await tx.execute(
        `update phone_verifications set used_at = now() where phone_number = ? and token_hash = ? and used_at is null returning 1`,
        [phoneNumber, tokenHash],
      );
      if (spent.length === 0) throw exists; // a concurrent request with this token won
      const created = tx.create(User, {
        phoneNumber,
        firstName: input.firstName.trim(),
        lastName: input.lastName.trim(),
      });
      await tx.flush();
      token = issueToken(ctx, created.id);
      await rememberDevice(tx, created.id, { ...input, locale: ctx.locale, tokenId: token.tokenId });
      return created;
    });
    return { userExists: true, phoneNumber, token: token!, user };
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw exists; // a concurrent registration won
    throw error;
  }
}

export async function me(ctx: Context): Promise<User> {
  return getUser(ctx, viewerOf(ctx).userId);
}

export async function logout(ctx: Context): Promise<void> {
  const viewer = viewerOf(ctx);
  await revokeToken(ctx, viewer);
  await forgetDevicePushToken(ctx.em, viewer.userId, viewer.tokenId);
  // Open sockets of this token close now; the websocket's periodic re-check covers a lost notice.
  ctx.services.tokenEvents.publish('revoked', { jti: viewer.tokenId });
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function normalize(ctx: Context, raw: string): string {
  const { defaultCountry, testNumbers } = ctx.services.config.otp;
  const phone = normalizePhone(raw, defaultCountry, testNumbers);
  if (!phone) throw invalidField('phoneNumber', 'The phone number is not a valid phone number.');
  return phone;
}
