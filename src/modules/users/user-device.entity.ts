import { Entity, ManyToOne, PrimaryKey, Property, Opt, Ref, Unique } from '@mikro-orm/core';
import { User } from './user.entity';

/** A phone a user signed in from; `pushToken` is where order notifications go later. */
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

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  lastSeenAt: Date & Opt = new Date();
}
