import { Entity, OneToOne, Opt, Property, Ref } from '@mikro-orm/core';
import { User } from '../users/user.entity';

/**
 * What a user wants to hear and where (preference.service.ts). No row = the defaults: every
 * channel on, promotions off, no quiet hours. Order messages always go (on the channels that
 * are on) and are never held by quiet hours, which only hold marketing-type messages.
 */
@Entity({ tableName: 'notification_preferences' })
export class NotificationPreference {
  @OneToOne(() => User, { ref: true, primary: true, owner: true, deleteRule: 'cascade' })
  user!: Ref<User>;

  @Property({ default: true })
  push: boolean & Opt = true;

  @Property({ default: true })
  whatsapp: boolean & Opt = true;

  @Property({ default: true })
  webPush: boolean & Opt = true;

  @Property({ default: false })
  promotions: boolean & Opt = false;

  /** Quiet hours, local `HH:MM` in `quietTimezone`; both null = none. */
  @Property({ length: 5, nullable: true })
  quietStart?: string | null;

  @Property({ length: 5, nullable: true })
  quietEnd?: string | null;

  @Property({ length: 64, nullable: true })
  quietTimezone?: string | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
