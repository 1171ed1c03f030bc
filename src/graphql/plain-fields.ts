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
import { GraphQLFieldResolver, GraphQLObjectType, GraphQLSchema } from 'graphql';
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

/** A resolver type-graphql built, and the direct one that replaced it (`wrapped` answers whatever the direct one does not decide). */
export type DirectResolver = GraphQLFieldResolver<unknown, unknown> & { wrapped: GraphQLFieldResolver<unknown, unknown> };

type ResolverClass = new () => object;

/**
 * Field resolvers that type-graphql's wrapper only slows down are called directly, after the
 * schema is built. Per call the wrapper makes a resolver-data object, finds the resolver's
 * instance in its container (a linear search), dispatches an empty middleware list, sorts the
 * method's parameters and maps them, and converts the root; the cards of every store list
 * (nearby's 15, the home screen's 40) ask four such fields each: `isOpen` and `categoryName`
 * (methods of StoreResolver), `deliveryPrice` and `categoryId` (getters of Store). Two kinds:
 * - a getter of an object type's class (type-graphql's "internal" field resolver): read on the
 *   root, as the wrapper reads it;
 * - a method of a resolver class whose only parameters are `@Root()` and `@Ctx()` (whole, no
 *   property picked), on a class that holds no state (an instance without own properties:
 *   type-graphql's container would call the same code on its own instance).
 * Either only when nothing wraps it (no middleware or `@Authorized` on it or its class, as
 * `readPlainFieldsDirectly`; the build passes no global middlewares) and one resolver answers
 * the field. The direct resolver decides only for a root that is already an instance of the
 * class type-graphql would convert it to (views and entities are): it then passes the same
 * root and context, so the answer is the method's or getter's own; any other root goes to the
 * wrapper (`wrapped`). A getter that returns a function (the wrapper would call it) goes to the
 * wrapper too. Returns the fields replaced (`Type.field`). docs/decisions.md "City scale:
 * nearby's cost over its hand-written twin".
 */
export function callFieldResolversDirectly(schema: GraphQLSchema, resolvers: readonly ResolverClass[]): string[] {
  const storage = getMetadataStorage();
  const wrapped = (target: unknown, name: string) =>
    storage.middlewares.some((m) => m.target === target && m.fieldName === name) ||
    storage.resolverMiddlewares.some((m) => m.target === target) ||
    storage.authorizedFields.some((a) => a.target === target && a.fieldName === name) ||
    storage.authorizedResolver.some((a) => a.target === target);
  const typeClassOf = (def: (typeof storage.fieldResolvers)[number]): ResolverClass | undefined =>
    def.kind === 'internal'
      ? (def.target as ResolverClass)
      : (storage.resolverClasses.find((r) => r.target === def.target)?.getObjectType?.() as ResolverClass | undefined);
  // The resolvers type-graphql picks from (schema-generator: internal ones and the built resolver classes').
  const candidates = storage.fieldResolvers.filter((def) => def.kind === 'internal' || resolvers.includes(def.target as ResolverClass));
  const replaced: string[] = [];
  for (const def of candidates) {
    const typeClass = typeClassOf(def);
    if (!typeClass || wrapped(def.target, def.methodName) || (def.kind === 'internal' ? false : wrapped(typeClass, def.methodName)))
      continue;
    // One resolver for the field, and no subclass type inheriting it (whose field would share it).
    if (candidates.some((other) => other !== def && typeClassOf(other) === typeClass && other.methodName === def.methodName)) continue;
    if (storage.objectTypes.some((o) => o.target !== typeClass && Object.prototype.isPrototypeOf.call(typeClass, o.target))) continue;
    if (storage.resolverClasses.some((r) => r.target !== def.target && Object.prototype.isPrototypeOf.call(def.target, r.target))) continue;
    const typeName = storage.objectTypes.find((o) => o.target === typeClass)?.name;
    const type = typeName === undefined ? undefined : schema.getType(typeName);
    if (!(type instanceof GraphQLObjectType)) continue;
    const field = type.getFields()[def.schemaName];
    if (!field?.resolve) continue;
    const original = field.resolve as GraphQLFieldResolver<unknown, unknown>;
    let direct: GraphQLFieldResolver<unknown, unknown> | undefined;
    if (def.kind === 'internal') {
      if (!getterOf(typeClass, def.methodName)) continue;
      const name = def.methodName;
      direct = (root, args, context, info) => {
        if (!(root instanceof typeClass)) return original(root, args, context, info);
        const value = (root as Record<string, unknown>)[name];
        return typeof value === 'function' ? original(root, args, context, info) : value;
      };
    } else {
      const params = storage.params
        .filter((p) => p.target === def.target && p.methodName === def.methodName)
        .sort((a, b) => a.index - b.index);
      const shapes = params.map((p) =>
        p.kind === 'root' && p.propertyName === undefined
          ? 'root'
          : p.kind === 'context' && p.propertyName === undefined
            ? 'context'
            : 'other',
      );
      if (shapes.join() !== 'root,context' || params.some((p, k) => p.index !== k)) continue;
      const rootParam = params[0] as { getType?: () => unknown };
      const rootClass = rootParam.getType?.();
      if (typeof rootClass !== 'function') continue;
      const Resolver = def.target as ResolverClass;
      const instance = new Resolver();
      if (Reflect.ownKeys(instance).length > 0) continue;
      const method = (Resolver.prototype as Record<string, unknown>)[def.methodName];
      if (typeof method !== 'function') continue;
      direct = (root, args, context, info) =>
        root instanceof rootClass ? method.call(instance, root, context) : original(root, args, context, info);
    }
    field.resolve = Object.assign(direct, { wrapped: original });
    replaced.push(`${type.name}.${field.name}`);
  }
  return replaced;
}

/** Whether `name` is a getter on `target`'s prototype chain. */
function getterOf(target: ResolverClass, name: string): boolean {
  for (
    let proto: object | null = target.prototype as object;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor) return descriptor.get !== undefined;
  }
  return false;
}
