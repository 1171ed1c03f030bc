import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

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
}
