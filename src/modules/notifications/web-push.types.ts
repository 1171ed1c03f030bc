import { Field, Float, InputType, ObjectType } from 'type-graphql';
import { IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { WebPushSubscription } from './web-push.entity';

@InputType()
export class WebPushKeysInput {
  @Field({ description: 'The browser’s P-256 public key, base64url (65 bytes).' })
  @IsString()
  p256dh!: string;

  @Field({ description: 'The browser’s auth secret, base64url (16 bytes).' })
  @IsString()
  auth!: string;
}

@InputType({ description: 'A browser’s PushSubscription as its toJSON() gives it.' })
export class WebPushSubscriptionInput {
  @Field({ description: 'The push service URL: https on a public host.' })
  @IsString()
  @MaxLength(2048) // the precise bound (and message) is the service's
  endpoint!: string;

  @Field(() => Float, {
    nullable: true,
    description: 'Accepted as browsers send it; unused (an ended subscription answers 404/410 and is removed).',
  })
  @IsOptional()
  expirationTime?: number | null;

  @Field(() => WebPushKeysInput)
  @ValidateNested()
  keys!: WebPushKeysInput;
}

@ObjectType({ simpleResolvers: true })
export class WebPushSubscriptionPayload {
  @Field()
  message!: string;

  @Field(() => WebPushSubscription)
  subscription!: WebPushSubscription;
}
