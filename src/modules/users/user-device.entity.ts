import { Entity, ManyToOne, PrimaryKey, Property, Opt, Ref, Unique } from '@mikro-orm/core';
import { User } from './user.entity';

/** A phone a user signed in from; `pushToken` is where its push notifications go. */
@Entity({ tableName: 'user_devices' })
@Unique({ properties: ['user', 'deviceId'] })
export class UserDevice {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { ref: true, deleteRule: 'cascade' })
  user!: Ref<User>;

  @Property({ length: 255 })
  deviceId!: string;

  @Property({ type: 'text', nullable: true })
  pushToken?: string | null;

  /** The notification language, from the device's Accept-Language at sign-in (`en`, `fr`). */
  @Property({ length: 8, nullable: true })
  locale?: string | null;

  /** The jti of the token issued at the latest sign-in: its logout clears `pushToken`. */
  @Property({ length: 64, nullable: true })
  tokenId?: string | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  lastSeenAt: Date & Opt = new Date();
}
