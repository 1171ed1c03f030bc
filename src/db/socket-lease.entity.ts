import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One authenticated websocket of any instance (src/graphql/socket-leases.ts): the per-user
 * socket cap counts these rows, so it holds across instances. A lease its instance stops
 * renewing (killed) stops counting when it expires.
 */
@Entity({ tableName: 'socket_leases' })
export class SocketLease {
  @PrimaryKey({ length: 36 })
  id!: string;

  @Property()
  @Index()
  userId!: number;

  @Property({ type: 'timestamptz' })
  @Index()
  expiresAt!: Date;
}
