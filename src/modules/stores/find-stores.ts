/**
 * Nearby's one entry: a page of the stores matching the filter, in the sort's order (ties:
 * nearer, then lower id), and how many match (exact). The reach index answers when it can
 * (reach/reach.ts), SQL otherwise (store-query.ts); both answer alike (test/nearby-equivalence.test.ts).
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { reachStoresPage } from './reach/reach';
import { findStoresBySql, FoundStores, Page, StoreFilter, StoreSort } from './store-query';

/** `cardsAt`: the request's instant, to read each store's card (category, open then) with the page when the index answers. */
export async function findStores(
  em: EntityManager,
  filter: StoreFilter,
  sort: StoreSort,
  page: Page,
  { cardsAt }: { cardsAt?: Date } = {},
): Promise<FoundStores> {
  return (await reachStoresPage(em, filter, sort, page, cardsAt)) ?? findStoresBySql(em, filter, sort, page);
}
