/**
 * Plain fields (a property or a column of a row view) are read by graphql-js's own default
 * resolver instead of type-graphql's per-field wrapper. The wrapper gives every field of every
 * row a resolver-data object, a closure and a middleware dispatch even when there is nothing to
 * dispatch (issue 9: the home screen's ~1 000 fields per answer; docs/decisions.md "City scale:
 * executing the document"). It is type-graphql's own `@Field({ simple: true })`, applied to each
 * field where it changes nothing but the cost:
 * - the field has no resolver of its own (getters and methods are field resolvers; `simple` does
 *   not touch those),
 * - nothing wraps it: no `@UseMiddleware` on it or its class, no `@Authorized` on it or its class
 *   (the build passes no global middlewares),
 * - its schema name is its property name (the default resolver reads `source[schema name]`, the
 *   wrapper `source[property]`).
 * A property holding a function would be called by the default resolver and returned by the
 * wrapper (then refused as a value): no field of the schema holds one.
 * Called before each schema build (tests build more than one); idempotent.
 */
import { getMetadataStorage } from 'type-graphql';

export function readPlainFieldsDirectly(): void {
  const storage = getMetadataStorage();
  for (const field of storage.fields) {
    if (field.simple !== undefined || field.schemaName !== field.name) continue;
    const { target, name } = field;
    const wrapped =
      storage.middlewares.some((m) => m.target === target && m.fieldName === name) ||
      storage.resolverMiddlewares.some((m) => m.target === target) ||
      storage.authorizedFields.some((a) => a.target === target && a.fieldName === name) ||
      storage.authorizedResolver.some((a) => a.target === target);
    if (!wrapped) field.simple = true;
  }
}
