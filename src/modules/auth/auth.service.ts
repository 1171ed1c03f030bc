/**
 * Customer phone sign-in (spec §4.1): send-otp -> verify-otp -> complete-profile for new
 * users; me and logout for signed-in ones. REST and GraphQL both land here.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Config } from '../../config';
import { AppError, conflict, forbidden, invalidField } from '../../common/errors';
import { normalizePhone } from '../../common/phone';
import { Context } from '../../graphql/context';
import { User } from '../users/user.entity';
import { findUserByPhone, getUser, rememberDevice } from '../users/user.service';
import { MessageSender } from './senders';
import { OtpService } from './otp.service';
import { IssuedToken, TokenService, requireViewer } from './token.service';

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
}

export interface DeviceInput {
  deviceId?: string | null;
  pushToken?: string | null;
}

export class AuthService {
  constructor(
    private readonly config: Config['otp'],
    private readonly otp: OtpService,
    private readonly tokens: TokenService,
    private readonly sender: MessageSender,
  ) {}

  async sendOtp(ctx: Context, rawPhone: string): Promise<CodeSent> {
    const phoneNumber = this.normalize(rawPhone);
    const issued = await this.otp.issue(ctx.em, phoneNumber, ctx.ip);
    if (!this.config.testNumbers.has(phoneNumber)) {
      try {
        await this.sender.sendCode(phoneNumber, issued.code);
      } catch (error) {
        ctx.logger.error({ err: error, phoneNumber }, 'sending the one-time code failed');
        await this.otp.withdraw(ctx.em, phoneNumber, issued);
        throw new AppError('UPSTREAM_FAILED', 'The verification code could not be sent. Please try again later.');
      }
    }
    return { phoneNumber, expiresIn: this.config.ttlSeconds, resendIn: this.config.resendCooldownSeconds };
  }

  async verifyOtp(ctx: Context, input: { phoneNumber: string; verificationCode: string } & DeviceInput): Promise<Session> {
    const phoneNumber = this.normalize(input.phoneNumber);
    await this.otp.consume(ctx.em, phoneNumber, input.verificationCode.trim());
    const user = await findUserByPhone(ctx.em, phoneNumber);
    if (user) {
      await rememberDevice(ctx.em, user.id, input);
      return { userExists: true, phoneNumber, token: this.tokens.issue(user.id), user };
    }
    // The phone is proven; complete-profile may register it within the verification window.
    await ctx.em.execute(
      `insert into phone_verifications (phone_number, expires_at) values (?, now() + make_interval(secs => ?))
       on conflict (phone_number) do update set expires_at = excluded.expires_at`,
      [phoneNumber, this.config.verificationTtlSeconds],
    );
    return { userExists: false, phoneNumber, token: null, user: null };
  }

  async completeProfile(
    ctx: Context,
    input: { phoneNumber: string; firstName: string; lastName: string } & DeviceInput,
  ): Promise<Session> {
    const phoneNumber = this.normalize(input.phoneNumber);
    // Verification is checked before existence so that this path cannot probe who is registered.
    const verified = await ctx.em.execute(
      `select 1 from phone_verifications where phone_number = ? and expires_at > now()`,
      [phoneNumber],
    );
    if (verified.length === 0) throw forbidden('The phone number has not been verified.');
    const exists = conflict('A user with this phone number already exists.');
    if (await findUserByPhone(ctx.em, phoneNumber)) throw exists;
    try {
      const user = await ctx.em.transactional(async (tx) => {
        const created = tx.create(User, {
          phoneNumber,
          firstName: input.firstName.trim(),
          lastName: input.lastName.trim(),
        });
        await tx.flush();
        await rememberDevice(tx, created.id, input);
        return created;
      });
      return { userExists: true, phoneNumber, token: this.tokens.issue(user.id), user };
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw exists; // a concurrent registration won
      throw error;
    }
  }

  async me(ctx: Context): Promise<User> {
    return getUser(ctx.em, requireViewer(ctx.viewer, ctx.authError).userId);
  }

  async logout(ctx: Context): Promise<void> {
    const viewer = requireViewer(ctx.viewer, ctx.authError);
    await this.tokens.revoke(ctx.em, viewer);
    // Open sockets of this token close now; the websocket's periodic re-check covers a lost notice.
    ctx.services.tokenEvents.publish('revoked', { jti: viewer.tokenId });
  }

  private normalize(raw: string): string {
    const phone = normalizePhone(raw, this.config.defaultCountry, this.config.testNumbers);
    if (!phone) throw invalidField('phoneNumber', 'The phone number is not a valid phone number.');
    return phone;
  }
}
