/**
 * Every latitude and longitude in an answer goes through this one field decorator: a GraphQL
 * Float rounded to 6 decimals (≈ 0.1 m), what a phone's position means. Doubles picked up
 * float noise on the way (33.548553000000005); no resolver rounds on its own.
 */
import { GraphQLFieldResolver, GraphQLObjectType, GraphQLSchema } from 'graphql';
import { Field, Float, getMetadataStorage, MiddlewareFn, UseMiddleware } from 'type-graphql';

export const COORDINATE_DECIMALS = 6;
const SCALE = 10 ** COORDINATE_DECIMALS;

export function roundCoordinate<T extends number | null | undefined>(value: T): T {
  return (typeof value === 'number' ? Math.round(value * SCALE) / SCALE : value) as T;
}

const rounded: MiddlewareFn = async (_data, next) => roundCoordinate((await next()) as number | null | undefined);

/** `@CoordinateField()` in place of `@Field(() => Float)` on a latitude or longitude. */
export function CoordinateField(options: { nullable?: boolean; description?: string } = {}): PropertyDecorator {
  return (target, key) => {
    Field(() => Float, options)(target, key);
    UseMiddleware(rounded)(target, key);
  };
}

/**
 * Coordinate fields answered without type-graphql's middleware dispatch, after the schema is
 * built: the rounding middleware made each latitude and longitude of an answer an async
 * dispatch (about ten promises per field: 2 per store details, 30 per nearby page of cards;
 * docs/decisions.md "City scale: the small reads' cost over their twins"). The direct resolver
 * answers what the wrapper answers, `roundCoordinate(root[property])`, synchronously. Only where
 * the rounding is all that wraps the field: a plain property (not a getter or field resolver),
 * no other middleware and no `@Authorized` on it or its class (the build passes no global
 * middlewares). Returns the fields replaced (`Type.field`). Idempotent per schema.
 */
export function roundCoordinatesDirectly(schema: GraphQLSchema): string[] {
  const storage = getMetadataStorage();
  const replaced: string[] = [];
  for (const field of storage.fields) {
    const { target, name } = field;
    const middlewares = storage.middlewares.filter((m) => m.target === target && m.fieldName === name);
    if (middlewares.length !== 1 || middlewares[0].middlewares.length !== 1 || middlewares[0].middlewares[0] !== rounded) continue;
    if (
      storage.resolverMiddlewares.some((m) => m.target === target) ||
      storage.authorizedFields.some((a) => a.target === target && a.fieldName === name) ||
      storage.authorizedResolver.some((a) => a.target === target) ||
      storage.fieldResolvers.some((r) => r.kind === 'internal' && r.target === target && r.methodName === name)
    ) {
      continue;
    }
    // The field's type and every object type inheriting it (each has the field with its own wrapper).
    for (const objectType of storage.objectTypes) {
      if (objectType.target !== target && !Object.prototype.isPrototypeOf.call(target, objectType.target)) continue;
      const type = schema.getType(objectType.name);
      if (!(type instanceof GraphQLObjectType)) continue;
      const schemaField = type.getFields()[field.schemaName];
      if (!schemaField?.resolve || 'wrapped' in schemaField.resolve) continue;
      const wrapped = schemaField.resolve as GraphQLFieldResolver<unknown, unknown>;
      schemaField.resolve = Object.assign(
        (root: unknown) => roundCoordinate((root as Record<string, unknown>)[name] as number | null | undefined),
        {
          wrapped,
        },
      );
      replaced.push(`${type.name}.${schemaField.name}`);
    }
  }
  return replaced;
}
