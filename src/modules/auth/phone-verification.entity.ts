import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** A phone proven by a code but not registered yet: complete-profile consumes it. */
@Entity({ tableName: 'phone_verifications' })
export class PhoneVerification {
  @PrimaryKey({ length: 16 })
  phoneNumber!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}
