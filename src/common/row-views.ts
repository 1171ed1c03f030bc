/**
 * Rows read with SQL and answered as an entity's GraphQL type, without entity hydration (issue
 * 9: on the hot reads MikroORM's query building, hydration and identity map were about a third
 * of the CPU of a request).
 *
 * A row becomes a *view*: its own properties are the entity's fields under their property
 * names (SQL aliases them: `redirect_type as "redirectType"`), a many-to-one the entity's
 * getters or field resolvers read is a plain `{ id }`, and its prototype is the entity's, so
 * that type-graphql's field resolvers and the entity's getters (`deliveryPrice`) see the
 * instance they expect (type-graphql copies a plain root into `new Entity()`, which MikroORM's
 * property setters refuse). A view is read-only and unmanaged: never hand one to the ORM
 * (`persist`, `assign`, `wrap`, `Reference`); a write loads the entity.
 */

/** What a view holds of entity `T`: its fields, its relations as ids. */
export type View<T> = T;

/** Gives each row the entity's prototype, in place. */
export function asViews<T extends object>(entity: abstract new (...args: never[]) => T, rows: object[]): View<T>[] {
  const prototype = entity.prototype as object;
  for (const row of rows) Object.setPrototypeOf(row, prototype);
  return rows as View<T>[];
}

/** A many-to-one as a view holds it (what `store.category?.id` reads). */
export const refOf = (id: number | null): { id: number } | null => (id === null ? null : { id });
