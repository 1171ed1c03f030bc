import { Entity, Index, ManyToOne, PrimaryKey, Property, Opt, Ref } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { CreatedAt } from '../../common/timestamped';
import { User } from '../users/user.entity';

/**
 * A browser's Web Push subscription (PushSubscription.toJSON()), kept per user: the dashboard
 * saves one after sign-in when its owner turns notifications on. One row per endpoint: a
 * browser that signs in as someone else carries its endpoint over to them, with its keys
 * (a stranger who knows only the endpoint is refused: web-push.service.ts).
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'web_push_subscriptions' })
export class WebPushSubscription {
  @Field(() => Int)
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade' })
  @Index()
  user!: Ref<User>;

  /** The push service's URL for this browser (checked by web-push.service.ts before it is kept). */
  @Field()
  @Property({ length: 1024, unique: true })
  endpoint!: string;

  /** The browser's P-256 public key (65 bytes) and auth secret (16 bytes), base64url: the payload is encrypted to them. */
  @Property({ length: 100 })
  p256dh!: string;

  @Property({ length: 32 })
  auth!: string;

  @Field(() => Date)
  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
