import { Field, Int, ObjectType } from 'type-graphql';
import { User } from '../users/user.entity';

@ObjectType({ simpleResolvers: true })
export class OtpChallenge {
  @Field({ description: 'The number the code went to, in E.164.' })
  phoneNumber!: string;

  @Field(() => Int, { description: 'Seconds the code stays valid.' })
  expiresIn!: number;

  @Field(() => Int, { description: 'Seconds before another code may be requested.' })
  resendIn!: number;
}

@ObjectType({ simpleResolvers: true })
export class SendOtpPayload {
  @Field()
  message!: string;

  @Field(() => OtpChallenge)
  challenge!: OtpChallenge;
}

@ObjectType({ simpleResolvers: true, description: 'The result of proving a phone: a token for a known user, or the way to registration.' })
export class AuthSession {
  @Field({ description: 'False: call completeProfile to register this phone.' })
  userExists!: boolean;

  @Field()
  phoneNumber!: string;

  @Field(() => String, { nullable: true })
  accessToken!: string | null;

  @Field(() => String, { nullable: true })
  tokenType!: string | null;

  @Field(() => Int, { nullable: true, description: 'Seconds until the access token expires.' })
  expiresIn!: number | null;

  @Field(() => User, { nullable: true })
  user!: User | null;

  @Field(() => String, {
    nullable: true,
    description: 'A new phone only: pass it to completeProfile, which requires it (single use).',
  })
  registrationToken!: string | null;

  @Field(() => Int, { nullable: true, description: 'Seconds the registration token stays valid.' })
  registrationExpiresIn!: number | null;
}

@ObjectType({ simpleResolvers: true })
export class AuthPayload {
  @Field()
  message!: string;

  @Field(() => AuthSession)
  session!: AuthSession;
}
