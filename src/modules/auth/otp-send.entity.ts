import { Entity, Index, PrimaryKey, Property, Opt } from '@mikro-orm/core';
import { CreatedAt } from '../../common/timestamped';

/** One code sent: the rate limits (cooldown, hourly and daily caps) count these rows. */
@Entity({ tableName: 'otp_sends' })
@Index({ properties: ['phoneNumber', 'createdAt'] })
@Index({ properties: ['ip', 'createdAt'] })
export class OtpSend {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ length: 16 })
  phoneNumber!: string;

  @Property({ length: 45 })
  ip!: string;

  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
