/**
 * Coordinate fields answered without type-graphql's middleware dispatch (src/common/coordinate-field.ts
 * `roundCoordinatesDirectly`): every latitude and longitude of an answer is direct, and answers
 * synchronously what the wrapped rounding middleware answers, for numbers with float noise,
 * integers, null and a missing value. The answers' bytes are held by the suites that read them
 * (coordinates, store-reads, nearby-equivalence, compiled-execution).
 */
import 'reflect-metadata';
import { GraphQLObjectType, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { DirectResolver } from '../src/graphql/plain-fields';
import { buildAppSchema } from '../src/graphql/schema';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildAppSchema();
});

function coordinateResolvers(): Map<string, DirectResolver> {
  const found = new Map<string, DirectResolver>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!/^(latitude|longitude)$/.test(field.name)) continue;
      found.set(`${type.name}.${field.name}`, field.resolve as DirectResolver);
    }
  }
  return found;
}

describe('coordinate fields', () => {
  it('are every latitude and longitude of the schema, each direct', () => {
    const fields = coordinateResolvers();
    for (const name of ['Store.latitude', 'Store.longitude', 'UserAddress.latitude', 'OrderAddress.longitude'])
      expect(fields.has(name)).toBe(true);
    for (const [name, resolve] of fields) expect([name, typeof resolve === 'function' && 'wrapped' in resolve]).toEqual([name, true]);
  });

  it('answer synchronously what the rounding middleware answers', async () => {
    const info = {} as GraphQLResolveInfo;
    const roots = [
      { latitude: 33.548553000000005, longitude: -7.6 },
      { latitude: 12, longitude: -0.0000004 },
      { latitude: null, longitude: 1e-7 },
      {},
    ];
    let compared = 0;
    for (const [name, resolve] of coordinateResolvers()) {
      for (const root of roots) {
        const direct = resolve(root, {}, {}, info);
        expect(direct).not.toBeInstanceOf(Promise);
        expect([name, root, direct]).toEqual([name, root, await resolve.wrapped(root, {}, {}, info)]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(16);
  });
});
