/**
 * The generic REST adapter on a schema of its own (no app, no database): boot-time validation
 * of the route table, reading path/query/body/header values by their declared types, snake_case
 * input objects, envelopes and error bodies. Real HTTP on a loopback port.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import express from 'express';
import {
  GraphQLBoolean,
  GraphQLFieldConfig,
  GraphQLFloat,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLNullableType,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { notFound, validationFailed } from '../src/common/errors';
import { createLogger } from '../src/common/logger';
import { Context } from '../src/context';
import { compileRoutes, restRouter } from '../src/rest/adapter';
import { RestRoute } from '../src/rest/route';
import { HttpClient } from './helpers/http';

// ---- a tiny schema: inputs echoed back as object types ----

const nonNull = <T extends GraphQLNullableType>(type: T) => new GraphQLNonNull(type);

const OrderItemInput = new GraphQLInputObjectType({
  name: 'OrderItemInput',
  fields: { productId: { type: nonNull(GraphQLInt) }, quantity: { type: nonNull(GraphQLInt) } },
});
const OrderInput = new GraphQLInputObjectType({
  name: 'OrderInput',
  fields: {
    storeId: { type: nonNull(GraphQLInt) },
    note: { type: GraphQLString },
    items: { type: nonNull(new GraphQLList(nonNull(OrderItemInput))) },
  },
});

const OrderItem = new GraphQLObjectType({
  name: 'OrderItem',
  fields: { productId: { type: nonNull(GraphQLInt) }, quantity: { type: nonNull(GraphQLInt) } },
});
const Order = new GraphQLObjectType({
  name: 'Order',
  fields: {
    storeId: { type: nonNull(GraphQLInt) },
    note: { type: GraphQLString },
    items: { type: nonNull(new GraphQLList(nonNull(OrderItem))) },
  },
});
const Echo = new GraphQLObjectType({
  name: 'Echo',
  fields: {
    id: { type: nonNull(GraphQLInt) },
    count: { type: GraphQLInt },
    lat: { type: GraphQLFloat },
    open: { type: GraphQLBoolean },
    tags: { type: new GraphQLList(nonNull(GraphQLString)) },
    key: { type: GraphQLString },
    input: { type: Order },
  },
});
const Placed = new GraphQLObjectType({
  name: 'Placed',
  fields: { message: { type: nonNull(GraphQLString) }, data: { type: Order } },
});
const Notice = new GraphQLObjectType({ name: 'Notice', fields: { message: { type: nonNull(GraphQLString) } } });

const echo: GraphQLFieldConfig<unknown, unknown> = {
  type: Echo,
  args: {
    id: { type: nonNull(GraphQLInt) },
    count: { type: GraphQLInt },
    lat: { type: GraphQLFloat },
    open: { type: GraphQLBoolean },
    tags: { type: new GraphQLList(nonNull(GraphQLString)) },
    key: { type: GraphQLString },
    input: { type: OrderInput },
  },
  resolve: (_root, args) => args,
};

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      echo,
      // Declared signed-in as @Authorized() declares it: the row derives its 401 from this.
      privateEcho: { ...echo, extensions: { signedIn: true } },
      nothing: { type: Echo, resolve: () => null },
      missingStore: {
        type: Echo,
        resolve: () => {
          throw notFound('Store', 7);
        },
      },
      boom: {
        type: Echo,
        resolve: () => {
          throw new Error('database on fire');
        },
      },
    },
  }),
  mutation: new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      placeOrder: {
        type: nonNull(Placed),
        args: { input: { type: nonNull(OrderInput) } },
        resolve: (_root, { input }) => ({ message: 'Order placed.', data: input }),
      },
      checkOrder: {
        type: nonNull(Placed),
        args: { input: { type: nonNull(OrderInput) } },
        resolve: () => {
          // Services report fields by their GraphQL names.
          throw validationFailed({ 'items.0.productId': ['The items.0.productId is not on the menu.'] });
        },
      },
      ping: { type: nonNull(Notice), resolve: () => ({ message: 'pong' }) },
    },
  }),
});

const ECHO_FIELDS = 'id count lat open tags';
const ORDER_FIELDS = 'store_id: storeId note items { product_id: productId quantity }';

const routes: RestRoute[] = [
  {
    method: 'GET',
    path: '/echo/:id',
    document: `query Echo($id: Int!, $count: Int, $lat: Float, $open: Boolean, $tags: [String!]) {
      echo(id: $id, count: $count, lat: $lat, open: $open, tags: $tags) { ${ECHO_FIELDS} }
    }`,
  },
  {
    method: 'GET',
    path: '/echo',
    document: `query Echo($id: Int!, $lat: Float) { echo(id: $id, lat: $lat) { id lat } }`,
  },
  {
    method: 'POST',
    path: '/echo',
    document: `query Echo($id: Int!, $count: Int) { thing: echo(id: $id, count: $count) { id count } }`,
  },
  {
    method: 'GET',
    path: '/keyed',
    headers: { key: 'x-key' },
    document: `query Keyed($key: String) { echo(id: 1, key: $key) { id key } }`,
  },
  {
    method: 'POST',
    path: '/orders',
    status: 201,
    envelope: 'message',
    bodyVariable: 'input',
    document: `mutation Place($input: OrderInput!) { placeOrder(input: $input) { message data { ${ORDER_FIELDS} } } }`,
  },
  {
    method: 'POST',
    path: '/orders/check',
    envelope: 'message',
    bodyVariable: 'input',
    document: `mutation Check($input: OrderInput!) { checkOrder(input: $input) { message } }`,
  },
  { method: 'POST', path: '/ping', envelope: 'message', document: `mutation { ping { message } }` },
  { method: 'GET', path: '/raw/:id', envelope: 'none', document: `query Raw($id: Int!) { echo(id: $id) { id } }` },
  { method: 'GET', path: '/nothing', document: `{ nothing { id } }` },
  // Shadowed by /raw/:id above: Express answers the first row that matches, and so must the adapter's route index.
  { method: 'GET', path: '/raw/7', document: `{ nothing { id } }` },
  { method: 'GET', path: '/private/:id', document: `query Private($id: Int!) { privateEcho(id: $id) { id } }` },
  { method: 'GET', path: '/stores/7', document: `{ missingStore { id } }` },
  { method: 'GET', path: '/boom', document: `{ boom { id } }` },
];

// ---- one Express app per mode, as the real app mounts the router ----

interface Served {
  client: HttpClient;
  close(): Promise<void>;
}

async function serve(development: boolean): Promise<Served> {
  const app = express();
  app.use(express.json());
  const logger = createLogger('silent');
  app.use(restRouter(schema, compileRoutes(schema, routes), { development, context: () => ({ logger }) as unknown as Context }));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    client: new HttpClient(`http://127.0.0.1:${port}`),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

let production: Served;
let development: Served;
let api: HttpClient;

beforeAll(async () => {
  production = await serve(false);
  development = await serve(true);
  api = production.client;
});

afterAll(async () => {
  await production?.close();
  await development?.close();
});

const VALIDATION = 'The given data was invalid.';

describe('compileRoutes', () => {
  const compile = (route: Partial<RestRoute>) => () =>
    compileRoutes(schema, [{ method: 'GET', path: '/things', document: '{ nothing { id } }', ...route }]);

  it('accepts the table above and keeps the response key of the root field (its alias)', () => {
    const compiled = compileRoutes(schema, routes);
    expect(compiled).toHaveLength(routes.length);
    expect(compiled.find((r) => r.method === 'POST' && r.path === '/echo')?.rootKey).toBe('thing');
    expect(compiled.find((r) => r.path === '/raw/:id')?.rootKey).toBe('echo');
  });

  it('throws, naming the route, for a document that does not validate', () => {
    expect(compile({ method: 'POST', path: '/things/:id', document: 'query($id: Int!) { nowhere(id: $id) { id } }' })).toThrow(
      /^REST route POST \/things\/:id is invalid:\n.*Cannot query field "nowhere" on type "Query"/,
    );
    expect(compile({ document: 'query($id: String!) { echo(id: $id) { id } }' })).toThrow(/REST route GET \/things is invalid:[\s\S]*\$id/);
    expect(compile({ document: '{ echo(id: 1) { ' })).toThrow(/Syntax Error/);
  });

  it('throws, naming the route, for two root fields', () => {
    expect(compile({ document: '{ nothing { id } other: nothing { id } }' })).toThrow(
      'REST route GET /things is invalid:\n  the operation must select exactly one root field',
    );
  });

  it('throws, naming the route, for a path parameter that is not a declared variable', () => {
    expect(compile({ path: '/stores/:store_id/things/:id', document: 'query($id: Int!) { echo(id: $id) { id } }' })).toThrow(
      'REST route GET /stores/:store_id/things/:id is invalid:\n  path parameter :store_id is not a variable of the document',
    );
  });

  it('throws for an undeclared bodyVariable and for two operations', () => {
    expect(compile({ bodyVariable: 'input' })).toThrow('REST route GET /things is invalid:\n  bodyVariable $input is not declared');
    expect(compile({ document: 'query A { nothing { id } } query B { nothing { id } }' })).toThrow(/exactly one operation/);
  });

  it('reports every problem of a route at once', () => {
    expect(compile({ path: '/things/:id', document: '{ nothing { id } second: nothing { id } }' })).toThrow(
      /exactly one root field\n {2}path parameter :id is not a variable/,
    );
  });
});

describe('query string and path values', () => {
  it('are read by their declared types: Int, Float and Boolean as 1/0/true/false', async () => {
    const res = await api.get('/echo/12?count=-3&lat=33.5731&open=true');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: 12, count: -3, lat: 33.5731, open: true, tags: null } });

    const cases: [string, boolean][] = [
      ['1', true],
      ['0', false],
      ['true', true],
      ['false', false],
    ];
    for (const [raw, open] of cases) {
      const answer = await api.get(`/echo/1?open=${raw}`);
      expect(answer.body.data.open).toBe(open);
    }
    expect((await api.get('/echo/1?lat=-7.5898')).body.data.lat).toBe(-7.5898);
    expect((await api.get('/echo/1?lat=1e3')).body.data.lat).toBe(1000);
    expect((await api.get('/echo/1?lat=7')).body.data.lat).toBe(7);
  });

  it('read repeated keys as a list, and a single value as a list of one', async () => {
    expect((await api.get('/echo/1?tags=halal&tags=vegan&tags=new')).body.data.tags).toEqual(['halal', 'vegan', 'new']);
    expect((await api.get('/echo/1?tags=halal')).body.data.tags).toEqual(['halal']);
  });

  it('leave an absent optional variable out', async () => {
    const res = await api.get('/echo/5');
    expect(res.body.data).toEqual({ id: 5, count: null, lat: null, open: null, tags: null });
  });

  it('answer 422 naming each bad value', async () => {
    const res = await api.get('/echo/1?count=1.5&lat=north&open=maybe');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: VALIDATION,
      errors: {
        count: ['The count must be an integer.'],
        lat: ['The lat must be a number.'],
        open: ['The open field must be true or false.'],
      },
    });
    const tooBig = await api.get('/echo/1?count=2147483648');
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.errors).toEqual({ count: ['The count must be an integer.'] });
    for (const huge of ['1e999', '-1e999']) {
      const infinite = await api.get(`/echo/1?lat=${huge}`);
      expect(infinite.status).toBe(422);
      expect(infinite.body.errors).toEqual({ lat: ['The lat must be a number.'] });
    }
    const twice = await api.get('/echo/1?count=1&count=2');
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toEqual({ count: ['The count must be an integer.'] });
  });

  it('a path parameter that does not parse names no resource: 404', async () => {
    for (const path of ['/echo/abc', '/echo/1.5', '/raw/x']) {
      const res = await api.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: `The route GET ${path} could not be found.` });
    }
  });

  it('a missing or blank required variable answers 422 "The id field is required."', async () => {
    for (const path of ['/echo', '/echo?id=', '/echo?id=%20&lat=1']) {
      const res = await api.get(path);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: VALIDATION, errors: { id: ['The id field is required.'] } });
    }
    expect((await api.get('/echo?id=4&lat=2.5')).body).toEqual({ success: true, data: { id: 4, lat: 2.5 } });
  });
});

describe('JSON body and header values', () => {
  it('fill variables by name from the body, before the query string', async () => {
    const res = await api.post('/echo?id=1&count=1', { id: 2, count: 20 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: 2, count: 20 } });
    expect((await api.post('/echo?count=3', { id: 8 })).body.data).toEqual({ id: 8, count: 3 });
  });

  it('take JSON types as sent: a numeric string is no Int (unlike the query string), other types are refused, non-null required', async () => {
    const res = await api.post('/echo', { id: '7', count: true });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ id: ['The id must be an integer.'], count: ['The count must be an integer.'] });
    expect((await api.post('/echo?count=3', { id: 7 })).body.data).toEqual({ id: 7, count: 3 });
    expect((await api.post('/echo', {})).body.errors).toEqual({ id: ['The id field is required.'] });
    expect((await api.post('/echo', { id: null })).body.errors).toEqual({ id: ['The id field is required.'] });
  });

  it('read a variable from its request header', async () => {
    expect((await api.get('/keyed', { headers: { 'x-key': 'abc-123' } })).body).toEqual({ success: true, data: { id: 1, key: 'abc-123' } });
    expect((await api.get('/keyed?key=from-query')).body.data.key).toBeNull();
  });
});

describe('bodyVariable input objects', () => {
  it('accept snake_case keys (product_id -> productId)', async () => {
    const res = await api.post('/orders', {
      store_id: 4,
      note: 'Ring twice',
      items: [
        { product_id: 9, quantity: 2 },
        { product_id: 11, quantity: 1 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Order placed.',
      data: {
        store_id: 4,
        note: 'Ring twice',
        items: [
          { product_id: 9, quantity: 2 },
          { product_id: 11, quantity: 1 },
        ],
      },
    });
  });

  it('accept the GraphQL names too, and ignore unknown keys', async () => {
    const res = await api.post('/orders', { storeId: 4, items: [{ productId: 9, quantity: 1, colour: 'red' }], extra: true });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ store_id: 4, note: null, items: [{ product_id: 9, quantity: 1 }] });
  });

  it('report nested errors with dotted snake_case paths', async () => {
    const res = await api.post('/orders', { items: [{ product_id: 9, quantity: 'two' }, { quantity: 1 }, 'milk'] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: VALIDATION,
      errors: {
        store_id: ['The store_id field is required.'],
        'items.0.quantity': ['The items.0.quantity must be an integer.'],
        'items.1.product_id': ['The items.1.product_id field is required.'],
        'items.2': ['The items.2 must be an object.'],
      },
    });
  });

  it('an empty body reports every required field', async () => {
    const res = await api.post('/orders');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ store_id: ['The store_id field is required.'], items: ['The items field is required.'] });
  });

  it('field errors a resolver raises under GraphQL names are answered under the REST names', async () => {
    const res = await api.post('/orders/check', { store_id: 4, items: [{ product_id: 9, quantity: 1 }] });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: VALIDATION, errors: { 'items.0.product_id': ['The items.0.product_id is not on the menu.'] } });
  });
});

describe('envelopes', () => {
  it("'data' (the default) answers { success, data } with the route's status (200 by default)", async () => {
    const res = await api.get('/echo?id=3');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { id: 3, lat: null } });
    expect(await api.get('/nothing')).toMatchObject({ status: 200, body: { success: true, data: null } });
  });

  it("'message' answers { success, message, data }, leaving data out when the value has none", async () => {
    const placed = await api.post('/orders', { store_id: 1, items: [] });
    expect(placed.status).toBe(201);
    expect(placed.body).toEqual({ success: true, message: 'Order placed.', data: { store_id: 1, note: null, items: [] } });
    const ping = await api.post('/ping');
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ success: true, message: 'pong' });
    expect(Object.keys(ping.body)).not.toContain('data');
  });

  it("'none' answers the value as it is", async () => {
    const res = await api.get('/raw/42');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 42 });
  });
});

describe('route matching', () => {
  it('a fixed path matches as Express matches it: another case, a trailing slash, HEAD', async () => {
    for (const path of ['/nothing', '/NOTHING', '/nothing/']) {
      expect(await api.get(path)).toMatchObject({ status: 200, body: { success: true, data: null } });
    }
    const head = await fetch(`${api.baseUrl}/nothing`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('the first row of the table that matches answers, even when a later row names the path exactly', async () => {
    expect(await api.get('/raw/7')).toMatchObject({ status: 200, body: { id: 7 } });
  });
});

describe('errors', () => {
  it('a route that needs a caller answers 401 before reading any input', async () => {
    const res = await api.get('/private/abc');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthenticated.' });
  });

  it('an AppError NOT_FOUND answers 404 naming the model and id', async () => {
    const res = await api.get('/stores/7');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'No query results for model [Store] 7' });
  });

  it('an unexpected error answers 500 "Server Error" outside development', async () => {
    const res = await api.get('/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'Server Error' });
  });

  it('in development, the 500 names the exception and carries the trace of the original error', async () => {
    const res = await development.client.get('/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ message: 'database on fire', exception: 'Error', trace: expect.any(Array) });
    const trace = res.body.trace as string[];
    expect(trace[0]).toBe('Error: database on fire');
    // The frames start at the resolver that threw, not inside graphql-js.
    expect(trace[1]).toMatch(/rest-adapter\.test\.ts/);
    expect(trace.every((line) => line === line.trim())).toBe(true);
  });

  it('in development, AppErrors still answer their own bodies', async () => {
    expect(await development.client.get('/stores/7')).toMatchObject({
      status: 404,
      body: { message: 'No query results for model [Store] 7' },
    });
    expect((await development.client.get('/echo')).body).toEqual({ message: VALIDATION, errors: { id: ['The id field is required.'] } });
  });
});
