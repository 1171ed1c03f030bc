/**
 * The REST adapter on a schema of its own: boot-time validation of the route table, coercion
 * of query and path values, input objects from snake_case bodies, envelopes, error bodies.
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import express from 'express';
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { notFound, validationFailed } from '../src/common/errors';
import { createLogger } from '../src/common/logger';
import { Context } from '../src/graphql/context';
import { compileRoutes, restRouter } from '../src/rest/adapter';
import { RestRoute } from '../src/rest/route';
import { HttpClient } from './helpers/http';

const JSON_TYPE = new GraphQLObjectType({
  name: 'Echo',
  fields: { json: { type: GraphQLString, resolve: ({ message: _message, ...rest }) => JSON.stringify(rest) }, message: { type: GraphQLString } },
});
const ITEM = new GraphQLInputObjectType({
  name: 'ItemInput',
  fields: { productId: { type: new GraphQLNonNull(GraphQLInt) }, quantity: { type: new GraphQLNonNull(GraphQLInt) } },
});
const ORDER = new GraphQLInputObjectType({
  name: 'OrderInput',
  fields: { storeId: { type: new GraphQLNonNull(GraphQLInt) }, items: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(ITEM))) } },
});

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      echo: {
        type: JSON_TYPE,
        args: { id: { type: GraphQLInt }, lat: { type: GraphQLFloat }, open: { type: GraphQLBoolean }, tags: { type: new GraphQLList(GraphQLString) }, q: { type: new GraphQLNonNull(GraphQLString) } },
        resolve: (_root, args) => ({ ...args, message: 'echoed' }),
      },
      order: {
        type: JSON_TYPE,
        args: { input: { type: new GraphQLNonNull(ORDER) } },
        resolve: (_root, { input }) => {
          if (input.items.some((i: { quantity: number }) => i.quantity < 1)) {
            throw validationFailed({ [`items.${input.items.findIndex((i: { quantity: number }) => i.quantity < 1)}.quantity`]: ['quantity must be at least 1'] });
          }
          return { ...input, message: 'Order placed.' };
        },
      },
      missing: { type: JSON_TYPE, resolve: () => { throw notFound('Store', 7); } },
      boom: { type: JSON_TYPE, resolve: () => { throw new Error('database on fire'); } },
    },
  }),
});

const routes: RestRoute[] = [
  { method: 'GET', path: '/echo/:id', document: `query($id: Int!, $lat: Float, $open: Boolean, $tags: [String], $q: String!) { echo(id: $id, lat: $lat, open: $open, tags: $tags, q: $q) { json } }` },
  { method: 'POST', path: '/orders', bodyVariable: 'input', status: 201, envelope: 'message', document: `query($input: OrderInput!) { order(input: $input) { message data: json } }` },
  { method: 'GET', path: '/raw', envelope: 'none', document: `query { echo(q: "x") { json } }` },
  { method: 'GET', path: '/missing', document: `query { missing { json } }` },
  { method: 'GET', path: '/boom', document: `query { boom { json } }` },
];

async function serve(development: boolean) {
  const app = express();
  app.use(express.json());
  const logger = createLogger('silent');
  app.use(restRouter(schema, compileRoutes(schema, routes), { development, context: () => ({ logger }) as unknown as Context }));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { client: new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), close: () => new Promise((r) => server.close(r)) };
}

let production: Awaited<ReturnType<typeof serve>>;
let development: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  production = await serve(false);
  development = await serve(true);
});
afterAll(async () => {
  await production.close();
  await development.close();
});

describe('compileRoutes', () => {
  it('refuses, naming the route, a document that does not validate, two root fields, or an undeclared path parameter', () => {
    const bad = (route: Partial<RestRoute>) => () => compileRoutes(schema, [{ method: 'GET', path: '/x', document: '{ echo(q: "a") { json } }', ...route }]);
    expect(bad({ document: '{ nothing }' })).toThrow(/REST route GET \/x is invalid:[\s\S]*nothing/);
    expect(bad({ document: '{ a: echo(q: "a") { json } b: echo(q: "b") { json } }' })).toThrow(/exactly one root field/);
    expect(bad({ path: '/x/:id' })).toThrow(/path parameter :id is not a variable/);
  });
});

describe('variables', () => {
  it('are read by their declared types from path and query', async () => {
    const res = await production.client.get('/echo/12?lat=33.5&open=1&tags=a&tags=b&q=pizza');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.data.json)).toEqual({ id: 12, lat: 33.5, open: true, tags: ['a', 'b'], q: 'pizza' });
    const off = await production.client.get('/echo/1?open=false&q=x');
    expect(JSON.parse(off.body.data.json).open).toBe(false);
  });

  it('answer 422 naming each bad or missing value, and 404 for a path that does not parse', async () => {
    const res = await production.client.get('/echo/3?lat=north&open=maybe');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      lat: ['The lat must be a number.'],
      open: ['The open field must be true or false.'],
      q: ['The q field is required.'],
    });
    expect((await production.client.get('/echo/abc?q=x')).status).toBe(404);
  });

  it('fill input objects from snake_case bodies and report nested errors with dotted paths', async () => {
    const ok = await production.client.post('/orders', { store_id: 4, items: [{ product_id: 9, quantity: 2 }] });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ success: true, message: 'Order placed.', data: JSON.stringify({ storeId: 4, items: [{ productId: 9, quantity: 2 }] }) });
    const shape = await production.client.post('/orders', { items: [{ product_id: 'nine' }] });
    expect(shape.status).toBe(422);
    expect(shape.body.errors).toEqual({
      store_id: ['The store_id field is required.'],
      'items.0.product_id': ['The items.0.product_id must be an integer.'],
      'items.0.quantity': ['The items.0.quantity field is required.'],
    });
    const rule = await production.client.post('/orders', { store_id: 4, items: [{ product_id: 9, quantity: 2 }, { product_id: 9, quantity: 0 }] });
    expect(rule.body.errors).toEqual({ 'items.1.quantity': ['quantity must be at least 1'] });
  });
});

describe('answers', () => {
  it("use the envelope the row names: 'data', 'message' or none", async () => {
    expect((await production.client.get('/echo/1?q=x')).body).toMatchObject({ success: true, data: { json: expect.any(String) } });
    expect((await production.client.get('/raw')).body).toEqual({ json: JSON.stringify({ q: 'x' }) });
  });

  it('render AppErrors as the spec bodies and mask unexpected errors outside development', async () => {
    expect(await production.client.get('/missing')).toMatchObject({ status: 404, body: { message: 'No query results for model [Store] 7' } });
    const masked = await production.client.get('/boom');
    expect(masked.status).toBe(500);
    expect(masked.body).toEqual({ message: 'Server Error' });
    const traced = await development.client.get('/boom');
    expect(traced.status).toBe(500);
    expect(traced.body).toMatchObject({ message: 'database on fire', exception: 'Error', trace: expect.any(Array) });
  });
});
