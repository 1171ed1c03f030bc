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
   * Every row of store_reach_changes written by a transaction whose id is below this was
   * pruned: a copy whose snapshot's xmin is below it cannot catch up from the log (rebuilds).
   */
  @Property({ type: 'bigint', default: 0 })
  logPrunedBelow!: string;
}

/**
 * The change log of reach data, one row per store a transaction changed (written by the same
 * triggers, in the same transaction): an index read at snapshot S catches up by re-reading the
 * stores of the rows whose transaction S did not see (pg_visible_in_snapshot), not the city.
 * A row without a store means "anything may have changed" (a truncate, a bulk write): rebuild.
 * reach-index.loader.ts; docs/decisions.md "City scale: the reach index under store edits".
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
