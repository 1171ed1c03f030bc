import { Entity, PrimaryKey, Property, Opt } from '@mikro-orm/core';
import { CreatedAt } from '../../common/timestamped';

/**
 * The one live code of a phone. Only an HMAC of the code is kept; a resend replaces the row,
 * a successful verification deletes it, and `attempts` is raised atomically in SQL.
 */
@Entity({ tableName: 'otp_codes' })
export class OtpCode {
  @PrimaryKey({ length: 16 })
  phoneNumber!: string;

  @Property({ length: 64 })
  codeHash!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ default: 0 })
  attempts: number & Opt = 0;

  @CreatedAt()
  createdAt: Date & Opt = new Date();
}
