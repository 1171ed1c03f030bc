import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A phone proven by a code but not registered yet. verify-otp hands the prover a registration
 * token (only its SHA-256 is kept here); complete-profile requires it and uses it up, so the
 * phone is registered by whoever verified it and nobody else.
 */
@Entity({ tableName: 'phone_verifications' })
export class PhoneVerification {
  @PrimaryKey({ length: 16 })
  phoneNumber!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  /** Hex SHA-256 of the registration token. Rows from before tokens have none and register nobody. */
  @Property({ length: 64, nullable: true })
  tokenHash?: string | null;

  /** Set in the transaction that registers the phone: the token is then spent. */
  @Property({ type: 'timestamptz', nullable: true })
  usedAt?: Date | null;
}
