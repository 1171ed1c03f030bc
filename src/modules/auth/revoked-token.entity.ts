import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** A logged-out token's id, kept until the token would have expired anyway. */
@Entity({ tableName: 'revoked_tokens' })
export class RevokedToken {
  @PrimaryKey({ type: 'uuid' })
  jti!: string;

  @Index()
  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}
