/**
 * Field resolvers called without type-graphql's wrapper (src/graphql/plain-fields.ts
 * `callFieldResolversDirectly`): which fields qualify, and that a direct resolver answers what
 * the wrapper answers — the same value for a root of the class, and the wrapper itself for
 * any other root. The bodies of the REST rows are held byte for byte by the suites that read
 * them (store-reads, nearby-equivalence, discovery, compiled-execution).
 */
import 'reflect-metadata';
import { GraphQLField, GraphQLObjectType, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { Context } from '../src/context';
import { DirectResolver } from '../src/graphql/plain-fields';
import { buildAppSchema } from '../src/graphql/schema';
import { StoreCategory } from '../src/modules/stores/store-category.entity';
import { Store } from '../src/modules/stores/store.entity';
import { primeStoreCards } from '../src/modules/stores/store.loaders';

const isDirect = (resolve: unknown): resolve is DirectResolver => typeof resolve === 'function' && 'wrapped' in resolve;

function directFields(schema: GraphQLSchema): Map<string, GraphQLField<unknown, unknown>> {
  const found = new Map<string, GraphQLField<unknown, unknown>>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) if (isDirect(field.resolve)) found.set(`${type.name}.${field.name}`, field);
  }
  return found;
}

/** A value as compared: a load not primed is a promise either way (to the same loader; this context has no database). */
function shown(value: unknown): unknown {
  if (!(value instanceof Promise)) return value;
  value.catch(() => undefined);
  return 'a load';
}

/** A store as a row view is one: the entity's prototype over its columns (src/common/row-views.ts). */
function storeView(columns: Record<string, unknown>): Store {
  return Object.setPrototypeOf({ ...columns }, Store.prototype) as Store;
}

describe('field resolvers called directly', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildAppSchema();
  });

  it("replaces the store cards' computed fields, and none that takes arguments or is wrapped", () => {
    const fields = directFields(schema);
    for (const name of ['Store.isOpen', 'Store.categoryName', 'Store.category', 'Store.deliveryPrice', 'Store.categoryId'])
      expect(fields.has(name)).toBe(true);
    const storage = getMetadataStorage();
    for (const [name, field] of fields) {
      expect([name, field.args.length]).toEqual([name, 0]);
      const method = name.split('.')[1];
      const wrapped =
        storage.middlewares.some((m) => m.fieldName === method) &&
        storage.fieldResolvers.some(
          (d) => d.methodName === method && storage.middlewares.some((m) => m.target === d.target && m.fieldName === method),
        );
      expect([name, wrapped]).toEqual([name, false]);
    }
    // Root fields keep type-graphql's resolver (arguments, validation, auth): none is direct.
    for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
      for (const field of Object.values(root?.getFields() ?? {}))
        expect([field.name, isDirect(field.resolve)]).toEqual([field.name, false]);
    }
    // Building again (tests build more than one schema) gives the same choice.
    return buildAppSchema().then((again) => expect([...directFields(again).keys()]).toEqual([...fields.keys()]));
  });

  it('answers what the wrapper answers, for a view, an entity and a plain object', () => {
    const fields = directFields(schema);
    const info = {} as GraphQLResolveInfo;
    const category = Object.setPrototypeOf(
      { id: 3, name: 'Pizza', icon: null, image: null, sortOrder: 1, mainCategoryId: null },
      StoreCategory.prototype,
    ) as StoreCategory;
    const columns = [
      { id: 1, timezone: 'Africa/Casablanca', freeDelivery: false, deliveryPriceCents: 1250, category: { id: 3 } },
      { id: 2, timezone: 'Africa/Casablanca', freeDelivery: true, deliveryPriceCents: 990, category: null },
      { id: 4, timezone: 'Europe/Paris', freeDelivery: false, deliveryPriceCents: 0, category: { id: 3 } },
    ];
    const ctx = { loaders: new Map(), em: undefined } as unknown as Context;
    const views = columns.map(storeView);
    primeStoreCards(ctx, new Map(views.map((view, k) => [view, { category: view.category ? (category as never) : null, open: k !== 1 }])));
    const entity = Object.assign(new Store(), columns[0]);
    let compared = 0;
    for (const name of ['Store.isOpen', 'Store.categoryName', 'Store.category', 'Store.deliveryPrice', 'Store.categoryId']) {
      const resolve = fields.get(name)!.resolve as DirectResolver;
      for (const root of [...views, entity]) {
        expect([name, root.id, shown(resolve(root, {}, ctx, info))]).toEqual([name, root.id, shown(resolve.wrapped(root, {}, ctx, info))]);
        compared++;
      }
      // A root that is not a Store goes to the wrapper, which converts it first.
      const plain = { ...columns[1] };
      expect([name, shown(resolve(plain, {}, ctx, info))]).toEqual([name, shown(resolve.wrapped(plain, {}, ctx, info))]);
    }
    expect(compared).toBe(20);
  });
});
