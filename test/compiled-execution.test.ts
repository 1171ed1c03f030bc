/**
 * A REST row's query runs compiled (src/rest/executor.ts); graphql-js's `execute` is the
 * reference. On a small city in real PostgreSQL, every query row of the route table is run by
 * both executors with the same variables and viewer (found, not found, filters, sorts, pages,
 * out-of-range input, signed in, anonymous, a refused token, the wrong role), and the results —
 * data, and each error's message, path, extensions and original error — must be identical.
 * A small schema of its own holds them to the same null propagation and errors where the
 * city's data never goes (null in a non-null field, inside lists, thrown and rejected errors,
 * interfaces and unions).
 */
import {
  buildSchema,
  execute,
  ExecutionResult,
  GraphQLError,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  OperationTypeNode,
  parse,
} from 'graphql';
import { AppError } from '../src/common/errors';
import { createLogger } from '../src/common/logger';
import { createContext } from '../src/context';
import { buildAppSchema } from '../src/schema';
import { compileRoutes, CompiledRoute } from '../src/rest/adapter';
import { rowExecutor } from '../src/rest/executor';
import { restRoutes } from '../src/routes';
import { CASABLANCA, Factory, northOf } from './helpers/factories';
import { registerCustomer } from './helpers/auth';
import { onlineDriver, orderWorld, placeOrder } from './helpers/orders';
import { useClockedTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';

let server: TestServer;
let make: Factory;
const clock = useClockedTestServer((s, f) => {
  server = s;
  make = f;
});

/** Monday 23 Nov 2026, 10:00 in Casablanca. */
const NOW = new Date('2026-11-23T09:00:00Z');

/** Everything a result says, in a form two executors' results compare by (stack traces aside). */
function comparable(result: ExecutionResult) {
  const original = (error: GraphQLError) => {
    const cause = error.originalError;
    if (!cause) return undefined;
    return { name: cause.name, message: cause.message, ...(cause instanceof AppError && { code: cause.code, details: cause.details }) };
  };
  return JSON.stringify({
    data: result.data,
    errors: result.errors?.map((e) => ({
      message: e.message,
      path: e.path,
      locations: e.locations,
      extensions: e.extensions,
      original: original(e),
    })),
  });
}

const logger = createLogger('silent');

async function bothWays(schema: GraphQLSchema, route: CompiledRoute, variables: Record<string, unknown>, token?: string) {
  const context = () =>
    createContext({
      em: server.db.orm.em,
      services: server.app.services,
      logger,
      ip: '127.0.0.1',
      authorization: token && `Bearer ${token}`,
    });
  const reference = await execute({ schema, document: route.ast, contextValue: await context(), variableValues: variables });
  const compiled = await route.execute(await context(), variables);
  return { reference: comparable(reference), compiled: comparable(compiled) };
}

describe('every query row of the route table', () => {
  it('answers the same data and errors compiled as through graphql-js', async () => {
    clock.set(NOW);
    const schema = await buildAppSchema();
    const routes = compileRoutes(schema, restRoutes);
    const w = await orderWorld(server, make);
    const pizza = await make.storeCategory({ name: 'Pizza' });
    await make.mainCategory();
    const {
      store,
      menu,
      category: section,
    } = await make.storeWithProducts(
      3,
      { category: pizza as never, name: 'Pizza Roma', rating: 4.5, ratingCount: 12 },
      { name: 'Margherita', isFeatured: true },
    );
    await make.store({ name: 'Free Pizza', deliveryPriceCents: 0, latitude: northOf(CASABLANCA, 2).lat, longitude: CASABLANCA.lng });
    await make.store({ name: 'Night Owl', hours: [[1, '22:00', '23:00']] });
    const hidden = await make.store({ name: 'Hidden', isActive: false });
    const offer = await make.offer({ storeId: store.id, title: 'Half price' });
    await make.ad();
    const placed = await placeOrder(server, w);
    expect(placed.status).toBe(201);
    const driver = await onlineDriver(server, CASABLANCA);
    const stranger = await registerCustomer(server);

    const at = { lat: CASABLANCA.lat, lng: CASABLANCA.lng };
    const viewers = [undefined, w.customer.token, w.owner.token, driver.token, stranger.token, 'not-a-token'];
    const cases: Record<string, Record<string, unknown>[]> = {
      '/v1/auth/customer/me': [{}],
      '/api/v1/homepage': [at, {}, { lat: 0, lng: 0 }, { lat: Infinity, lng: at.lng }],
      '/api/v1/global/search': [{ q: 'pizza' }, { q: 'Margherita' }, { q: 'zz' }, { q: '' }],
      '/api/v1/stores/nearby': [
        at,
        ...['distance', 'rating', 'delivery_fee', 'delivery_time', 'nope'].map((sort) => ({ ...at, sort })),
        { ...at, page: 2, per_page: 1 },
        { ...at, per_page: 0 },
        { ...at, radius: 1, min_rating: 4, free_delivery: true, is_open: true, has_offer: true, category_id: pizza.id },
        { ...at, free_delivery: false, is_open: false, has_offer: false },
        { lat: 91, lng: 0 },
        { lat: NaN, lng: 0 },
      ],
      '/api/v1/global/ads': [{}],
      '/api/v1/store/stores/:id/catalog': [{ id: store.id }, { id: hidden.id }, { id: 2 ** 31 - 1 }],
      '/api/v1/store/products': [{ store_id: store.id }, { store_id: 0 }],
      '/api/v1/store/stores/:store': [
        { store: String(store.id) },
        { store: store.slug },
        { store: hidden.slug },
        { store: String(w.owner.store.id) },
        { store: 'nope' },
      ],
      '/api/v1/store/store-categories': [{}],
      '/api/store/categories': [{}],
      '/api/v1/store/categories': [{}, { store_id: store.id }, { store_id: -1 }],
      '/api/v1/store/categories/:id': [{ id: pizza.id }, { id: 999999 }],
      '/api/v1/store/menu-categories': [
        {},
        { store_id: store.id },
        { menu_id: menu.id, page: 1, per_page: 1 },
        { store_id: store.id, page: 0 },
      ],
      '/api/v1/store/menu-categories/:id': [{ id: section.id }, { id: 999999 }],
      '/api/v1/store/menus': [{}, { store_id: store.id }, { store_id: w.owner.store.id, page: 2, per_page: 1 }],
      '/api/v1/store/menus/:id': [{ id: menu.id }, { id: 999999 }],
      '/api/v1/store/offers': [{}, { store_id: store.id }],
      '/api/v1/store/offers/:token': [{ token: offer.token }, { token: 'nope' }],
      '/api/v1/customer/addresses': [{}],
      '/api/v1/customer/addresses/:id': [{ id: w.addressId }, { id: 999999 }],
      '/api/v1/customer/orders': [{}],
      '/api/v1/customer/orders/:id': [{ id: placed.body.data.id }, { id: 999999 }],
      '/api/v1/store/orders': [{}, { store_id: w.owner.store.id }, { status: 'pending' }, { status: 'nope' }],
      '/api/v1/driver/me': [{}],
      '/api/v1/driver/orders': [{}],
      '/api/v1/payment-methods': [{}],
      '/api/v1/customer/notification-preferences': [{}],
      '/api/v1/store/notification-preferences': [{}],
      '/api/v1/customer/web-push/public-key': [{}],
      '/api/v1/store/web-push/public-key': [{}],
      '/api/v1/store/orders/:id/notifications': [{ id: placed.body.data.id }, { id: 999999 }],
    };

    const queries = routes.filter((r) => r.operation.operation === OperationTypeNode.QUERY);
    // A new query row needs its cases here, so that it is compared too.
    expect(queries.map((r) => r.path).sort()).toEqual(Object.keys(cases).sort());
    const differences: unknown[] = [];
    let compared = 0;
    for (const route of queries) {
      for (const variables of cases[route.path]) {
        for (const token of viewers) {
          const { reference, compiled } = await bothWays(schema, route, variables, token);
          compared += 1;
          if (reference !== compiled) differences.push({ path: route.path, variables, token: token?.slice(0, 8), reference, compiled });
        }
      }
    }
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThan(400);
  });
});

describe('the compiled executor on a schema of its own', () => {
  const schema = buildSchema(`
    interface Named { name: String! }
    type Person implements Named { name: String! age: Int }
    type Pet implements Named { name: String! legs: Int! }
    union Thing = Person | Pet
    type Item { id: Int! name: String! note: String }
    type Box { item: Item items: [Item!] nullableItems: [Item] strictItems: [Item!]! }
    type Query {
      box: Box
      strictBox: Box!
      fails: String
      failsStrictly: String!
      rejects: String
      appError: String
      named: [Named!]!
      things: [Thing]!
      count(n: Int!): Int
      half(n: Int!): Int
    }
  `);
  const item = (id: number, name: string | null, note: string | null = null) => ({ id, name, note });
  const box = {
    item: item(1, null),
    items: [item(1, 'a'), item(2, null)],
    nullableItems: [item(1, 'a'), item(2, null), null],
    strictItems: [item(1, 'a'), null],
  };
  const resolvers: Record<string, (source: unknown, args: Record<string, number>) => unknown> = {
    box: () => box,
    strictBox: () => Promise.resolve({ ...box, strictItems: [item(3, 'c')] }),
    fails: () => {
      throw new Error('boom');
    },
    failsStrictly: () => {
      throw new AppError('NOT_FOUND', 'nothing here');
    },
    rejects: () => Promise.reject(new AppError('FORBIDDEN', 'not yours')),
    appError: () => Promise.reject(new GraphQLError('located already', { extensions: { code: 'X' } })),
    named: () => [
      { __typename: 'Person', name: 'Ada', age: 36 },
      { __typename: 'Pet', name: 'Rex', legs: 4 },
    ],
    things: () => [{ __typename: 'Pet', name: 'Tom', legs: 4 }, null, { __typename: 'Person', name: 'Bob', age: null }],
    count: (_, { n }) => n * 2,
    half: (_, { n }) => n / 2,
  };
  const documents = [
    '{ box { item { id name note } } }',
    '{ box { items { id name } } }',
    '{ box { nullableItems { id name } } }',
    '{ box { strictItems { id name } } }',
    '{ strictBox { strictItems { id name } item { id } } }',
    '{ fails box { item { id } } }',
    '{ failsStrictly box { items { id } } }',
    '{ rejects appError }',
    '{ named { __typename name ... on Person { age } ... on Pet { legs } } }',
    '{ things { __typename ... on Person { name age } ... on Pet { name legs } } }',
    'query ($n: Int!) { count(n: $n) }',
    'query ($n: Int!) { half(n: $n) }',
  ];

  for (const [name, resolve] of Object.entries(resolvers)) schema.getQueryType()!.getFields()[name].resolve = resolve;

  it.each(documents)('%s', async (text) => {
    const document = parse(text);
    const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
    const declared = [{ name: 'n', type: schema.getQueryType()!.getFields().count.args[0].type }].filter(
      () => operation.variableDefinitions?.length,
    );
    const run = rowExecutor(schema, document, operation, declared);
    for (const variableValues of declared.length ? [{ n: 2 }, { n: 3 }, { n: 2 ** 31 }, { n: 1.5 }, {}, { n: null }] : [{}]) {
      const reference = await execute({ schema, document, contextValue: {}, variableValues });
      expect(comparable(await run({} as never, variableValues))).toBe(comparable(reference));
    }
  });
});
