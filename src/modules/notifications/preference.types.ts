import { Field, InputType, ObjectType } from 'type-graphql';
import { IsBoolean, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';

@ObjectType({ description: 'Where notifications may go.' })
export class NotificationChannels {
  @Field({ description: 'Mobile push (FCM) to every signed-in device with a push token.' })
  push!: boolean;

  @Field({ description: 'WhatsApp: a store owner’s new orders (when push is off or no device has a token).' })
  whatsapp!: boolean;

  @Field({ description: 'Web Push to the dashboard’s browsers.' })
  webPush!: boolean;
}

@ObjectType({ description: 'What to hear. Order messages always go (and are never held by quiet hours).' })
export class NotificationKinds {
  @Field({ description: 'Always true: accepted, on the way, new order...' })
  orderUpdates!: boolean;

  @Field({ description: 'Offers and news (marketing-type): off unless turned on; held during quiet hours.' })
  promotions!: boolean;
}

@ObjectType()
export class QuietHours {
  @Field({ description: 'Local time HH:MM.' })
  start!: string;

  @Field({ description: 'Local time HH:MM (before start: the quiet hours span midnight).' })
  end!: string;

  @Field({ description: 'IANA time zone, e.g. Africa/Casablanca.' })
  timezone!: string;
}

@ObjectType()
export class NotificationPreferences {
  @Field(() => NotificationChannels)
  channels!: NotificationChannels;

  @Field(() => NotificationKinds)
  kinds!: NotificationKinds;

  @Field(() => QuietHours, { nullable: true, description: 'Marketing-type messages only.' })
  quietHours!: QuietHours | null;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

@InputType()
export class NotificationChannelsInput {
  @Field({ nullable: true })
  @IsOptional()
  @IsBoolean()
  push?: boolean;

  @Field({ nullable: true })
  @IsOptional()
  @IsBoolean()
  whatsapp?: boolean;

  @Field({ nullable: true })
  @IsOptional()
  @IsBoolean()
  webPush?: boolean;
}

@InputType()
export class NotificationKindsInput {
  @Field({ nullable: true, description: 'Only true is accepted: order messages always go.' })
  @IsOptional()
  @IsBoolean()
  orderUpdates?: boolean;

  @Field({ nullable: true })
  @IsOptional()
  @IsBoolean()
  promotions?: boolean;
}

@InputType()
export class QuietHoursInput {
  @Field()
  @IsString()
  @Matches(HHMM, { message: 'start must be a time HH:MM' })
  start!: string;

  @Field()
  @IsString()
  @Matches(HHMM, { message: 'end must be a time HH:MM' })
  end!: string;

  @Field()
  @IsString()
  @MaxLength(64)
  timezone!: string;
}

@InputType({ description: 'Only the fields sent change; quietHours: null removes them.' })
export class NotificationPreferencesInput {
  @Field(() => NotificationChannelsInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  channels?: NotificationChannelsInput;

  @Field(() => NotificationKindsInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  kinds?: NotificationKindsInput;

  @Field(() => QuietHoursInput, { nullable: true })
  @IsOptional()
  @ValidateNested()
  quietHours?: QuietHoursInput | null;
}
