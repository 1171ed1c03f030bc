import { Field, InputType } from 'type-graphql';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { VisibleName } from '../../common/visible-text';

@InputType()
export class SendOtpInput {
  @Field({ description: 'Any common format; stored and answered in E.164.' })
  @IsString()
  @MaxLength(32)
  phoneNumber!: string;
}

@InputType()
export class DeviceFields {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  deviceId?: string | null;

  /** An FCM registration token (Android and iOS): 1–512 characters of letters, digits and `_ - : .`; empty: none (an app without notification permission). */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  @Matches(/^[A-Za-z0-9_:.-]*$/, { message: 'pushToken must be an FCM registration token (letters, digits, _ - : . only)' })
  pushToken?: string | null;
}

@InputType()
export class VerifyOtpInput extends DeviceFields {
  @Field()
  @IsString()
  @MaxLength(32)
  phoneNumber!: string;

  @Field()
  @IsString()
  @MaxLength(16)
  verificationCode!: string;
}

@InputType()
export class CompleteProfileInput extends DeviceFields {
  @Field()
  @IsString()
  @MaxLength(32)
  phoneNumber!: string;

  @Field()
  @IsString()
  @IsNotEmpty({ message: 'firstName is required.' })
  @VisibleName()
  @MaxLength(100)
  firstName!: string;

  @Field()
  @IsString()
  @IsNotEmpty({ message: 'lastName is required.' })
  @VisibleName()
  @MaxLength(100)
  lastName!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The registrationToken verifyOtp returned for this phone. Without it the phone counts as not verified (403).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  registrationToken?: string | null;
}
