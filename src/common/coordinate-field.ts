/**
 * Every latitude and longitude in an answer goes through this one field decorator: a GraphQL
 * Float rounded to 6 decimals (≈ 0.1 m), what a phone's position means. Doubles picked up
 * float noise on the way (33.548553000000005); no resolver rounds on its own.
 */
import { Field, Float, MiddlewareFn, UseMiddleware } from 'type-graphql';

export const COORDINATE_DECIMALS = 6;
const SCALE = 10 ** COORDINATE_DECIMALS;

export function roundCoordinate<T extends number | null | undefined>(value: T): T {
  return (typeof value === 'number' ? Math.round(value * SCALE) / SCALE : value) as T;
}

const rounded: MiddlewareFn = async (_data, next) => roundCoordinate((await next()) as number | null | undefined);

/**
 * `@CoordinateField()` in place of `@Field(() => Float)` on a latitude or longitude. Never a
 * simple resolver (the object types ask for `simpleResolvers`): the rounding middleware must run.
 */
export function CoordinateField(options: { nullable?: boolean; description?: string } = {}): PropertyDecorator {
  return (target, key) => {
    Field(() => Float, { ...options, simple: false })(target, key);
    UseMiddleware(rounded)(target, key);
  };
}
