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

/**
 * A DataLoader that also answers, without a promise, the values a statement handed it (`prime`):
 * a field resolver that returns such a value synchronously lets graphql-js complete its object
 * without a promise per field and per object (the home screen's 40 cards each asked two loaders:
 * docs/decisions.md "Executing REST rows"). `primed` answers only
 * what `load` would answer: a key loaded before it was primed keeps the loaded value (DataLoader
 * ignores that prime), so it is not recorded; nor is a value primed after an error or a promise.
 */
export class PrimedLoader<K, V> extends DataLoader<K, V> {
  private readonly primedValues = new Map<K, V>();
  private readonly loadedKeys = new Set<K>();

  override load(key: K): Promise<V> {
    // A primed value reaches DataLoader's cache when it is first loaded (a no-op afterwards).
    if (this.primedValues.has(key)) super.prime(key, this.primedValues.get(key)!);
    else this.loadedKeys.add(key);
    return super.load(key);
  }

  /**
   * A value is kept here and handed to DataLoader only if `load` asks for it: most primed
   * values are only ever read by `primed` (the cards of a list: 30 per nearby page, 80 on the
   * home screen), and DataLoader caches each as a resolved promise (an allocation and, with
   * async hooks on, a hook call each). The first value given wins, as in DataLoader.
   */
  override prime(key: K, value: V | PromiseLike<V> | Error): this {
    if (this.primedValues.has(key)) return this;
    if (!this.loadedKeys.has(key)) {
      // An error or a promise is cached by DataLoader as it is (a later prime is ignored): `load` answers it, so `primed` must not.
      if (value instanceof Error || isPromiseLike(value)) this.loadedKeys.add(key);
      else {
        this.primedValues.set(key, value);
        return this;
      }
    }
    return super.prime(key, value);
  }

  override clear(key: K): this {
    this.primedValues.delete(key);
    this.loadedKeys.delete(key);
    return super.clear(key);
  }

  override clearAll(): this {
    this.primedValues.clear();
    this.loadedKeys.clear();
    return super.clearAll();
  }

  /** The value primed for `key` (`undefined`: none; `load` it). */
  primed(key: K): V | undefined {
    return this.primedValues.get(key);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

export interface LoaderScope {
  em: EntityManager;
  loaders: LoaderCache;
}

/** `S`: a loader that needs more of the request than its em (the clock) names the scope it takes. */
export function batchLoader<K, V, S extends LoaderScope = LoaderScope>(
  batch: (em: EntityManager, keys: readonly K[], scope: S) => Promise<V[]>,
) {
  const loaderOf = (scope: S): PrimedLoader<K, V> => {
    let loader = scope.loaders.get(loaderOf) as PrimedLoader<K, V> | undefined;
    if (!loader) {
      loader = new PrimedLoader<K, V>((keys) => batch(scope.em, keys, scope));
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
