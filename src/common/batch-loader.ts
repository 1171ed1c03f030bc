/**
 * Per-request batch loaders. A module declares a loader next to the rows it owns
 * (`storeIsOpen = batchLoader(...)`); `storeIsOpen(ctx).load(id)` batches every call of one
 * request into one statement. The cache lives on the request context, so nothing is shared
 * between requests and the context needs to know no module.
 */
import DataLoader from 'dataloader';
import { EntityManager } from '@mikro-orm/postgresql';

/** The loaders a request has created so far, by their declaration. */
export type LoaderCache = Map<unknown, DataLoader<unknown, unknown>>;

export interface LoaderScope {
  em: EntityManager;
  loaders: LoaderCache;
}

/** `S`: a loader that needs more of the request than its em (the clock) names the scope it takes. */
export function batchLoader<K, V, S extends LoaderScope = LoaderScope>(batch: (em: EntityManager, keys: readonly K[], scope: S) => Promise<V[]>) {
  const loaderOf = (scope: S): DataLoader<K, V> => {
    let loader = scope.loaders.get(loaderOf) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V>((keys) => batch(scope.em, keys, scope));
      scope.loaders.set(loaderOf, loader);
    }
    return loader;
  };
  return loaderOf;
}

type Key = number;

/** Groups rows by a foreign key, in the order the query returned them. */
export function groupBy<T>(keys: readonly Key[], rows: T[], keyOf: (row: T) => Key): T[][] {
  const groups = new Map<Key, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((k) => groups.get(k) ?? []);
}

export function byId<T extends { id: number }>(keys: readonly Key[], rows: T[]): (T | null)[] {
  const found = new Map(rows.map((r) => [r.id, r]));
  return keys.map((k) => found.get(k) ?? null);
}

/** `{ $in: keys }` for a find by many keys. */
export const inKeys = (keys: readonly Key[]) => ({ $in: [...keys] });
