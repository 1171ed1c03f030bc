import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One authenticated websocket of any instance (src/graphql/socket-leases.ts): the per-user
 * socket cap counts these rows, so it holds across instances. A lease counts while its
 * instance's row (SocketInstance) is renewed; a killed instance's leases stop counting when
 * that row expires. A lease without an instance (a previous version's) counts until `expiresAt`.
 */
@Entity({ tableName: 'socket_leases' })
export class SocketLease {
  @PrimaryKey({ length: 36 })
  id!: string;

  @Property()
  @Index()
  userId!: number;

  @Property({ length: 36, nullable: true })
  @Index()
  instanceId?: string | null;

  @Property({ type: 'timestamptz' })
  @Index()
  expiresAt!: Date;
}

/** An instance holding socket leases, alive while it renews `expiresAt` (every few seconds). */
@Entity({ tableName: 'socket_instances' })
export class SocketInstance {
  @PrimaryKey({ length: 36 })
  id!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}
