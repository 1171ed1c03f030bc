import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Context } from '../../context';
import { User } from '../users/user.entity';
import * as auth from './auth.service';
import { Session } from './auth.service';
import { CompleteProfileInput, SendOtpInput, VerifyOtpInput } from './auth.inputs';
import { MessagePayload } from '../../common/message-payload';
import { AuthPayload, AuthSession, SendOtpPayload } from './auth.types';

const toSession = (s: Session): AuthSession => ({
  userExists: s.userExists,
  phoneNumber: s.phoneNumber,
  accessToken: s.token?.accessToken ?? null,
  tokenType: s.token?.tokenType ?? null,
  expiresIn: s.token?.expiresIn ?? null,
  user: s.user,
  registrationToken: s.registration?.token ?? null,
  registrationExpiresIn: s.registration?.expiresIn ?? null,
});

@Resolver()
export class AuthResolver {
  @Mutation(() => SendOtpPayload, { description: 'Sends a one-time code to the phone (spec §4.1 send-otp).' })
  async sendOtp(@Arg('input') input: SendOtpInput, @Ctx() ctx: Context): Promise<SendOtpPayload> {
    const challenge = await auth.sendOtp(ctx, input.phoneNumber);
    return { message: 'Verification code sent.', challenge };
  }

  @Mutation(() => AuthPayload, { description: 'Checks the code; signs a known user in (spec §4.1 verify-otp).' })
  async verifyOtp(@Arg('input') input: VerifyOtpInput, @Ctx() ctx: Context): Promise<AuthPayload> {
    const session = await auth.verifyOtp(ctx, input);
    const message = session.userExists
      ? 'Authentication successful.'
      : 'Phone number verified. Complete your profile to finish signing up.';
    return { message, session: toSession(session) };
  }

  @Mutation(() => AuthPayload, { description: 'Registers a verified phone (spec §4.1 complete-profile).' })
  async completeProfile(@Arg('input') input: CompleteProfileInput, @Ctx() ctx: Context): Promise<AuthPayload> {
    const session = await auth.completeProfile(ctx, input);
    return { message: 'Registration successful.', session: toSession(session) };
  }

  @Authorized()
  @Query(() => User, { description: 'The signed-in user.' })
  async me(@Ctx() ctx: Context): Promise<User> {
    return auth.me(ctx);
  }

  @Authorized()
  @Mutation(() => MessagePayload, { description: 'Revokes the token this request carries.' })
  async logout(@Ctx() ctx: Context): Promise<MessagePayload> {
    await auth.logout(ctx);
    return { message: 'Logged out.' };
  }
}
