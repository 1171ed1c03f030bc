import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One row: which version of the stores' reach data (position, radius, the columns nearby
 * filters and sorts on, opening hours, offers) the database holds. Triggers on `stores`,
 * `store_opening_hours` and `offers` set it to the writing transaction's id in the same
 * transaction, so every instance's in-process reach index (reach-index.ts) sees a committed
 * change on its next request and stops answering from stale data. Never written by the ORM.
 */
@Entity({ tableName: 'store_reach_version' })
export class StoreReachVersion {
  @PrimaryKey({ autoincrement: false })
  id!: number;

  /** The id (xid8) of the last transaction that changed reach data: never repeats, even after a truncate. */
  @Property({ type: 'bigint' })
  version!: string;

  /**
   * Rows of store_reach_changes written by a transaction whose id is below this may have been
   * pruned (a transaction's rows go together). A copy whose snapshot did not see such a
   * transaction cannot catch up from the log and rebuilds: the horizon past its snapshot's
   * xmax, or above a transaction of its in-progress list (xip) that has committed since and
   * has no row left (reach/reach-loader.ts catchUp).
   */
  @Property({ type: 'bigint', default: 0 })
  logPrunedBelow!: string;
}

/**
 * The change log of reach data, one row per store a transaction changed (written by the same
 * triggers, in the same transaction): an index read at snapshot S catches up by re-reading the
 * stores of the rows whose transaction S did not see (ids from its xmax on, or in its
 * in-progress list: the xid index's ranges), not the city.
 * A row without a store means "anything may have changed" (a truncate, a bulk write): rebuild.
 * reach/reach-loader.ts; docs/decisions.md "Nearby: the reach index under store edits".
 * Never written by the ORM; pruned by age (the loader).
 */
@Entity({ tableName: 'store_reach_changes' })
@Index({ properties: ['xid'] })
export class StoreReachChange {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  /** The writing transaction's id (xid8), as the version. */
  @Property({ type: 'bigint' })
  xid!: string;

  @Property({ type: 'int', nullable: true })
  storeId?: number | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  at!: Date;
}
