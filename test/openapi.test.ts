/** GET /openapi.json: the machine-readable description (spec §9), checked against real answers. */
import { restRoutes } from '../src/routes';
import { Factory } from './helpers/factories';
import { orderWorld, placeOrder } from './helpers/orders';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';

let server: TestServer;
let make: Factory;

useTestServer((s, f) => {
  server = s;
  make = f;
});

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
};

/** The JSON-schema subset the document uses; answers the paths that do not conform. */
function violations(value: unknown, schema: Schema, path = '$'): string[] {
  if (schema.anyOf) return schema.anyOf.some((s) => violations(value, s, path).length === 0) ? [] : [`${path}: matches no alternative`];
  if (schema.const !== undefined && value !== schema.const) return [`${path}: expected ${JSON.stringify(schema.const)}`];
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  const ok = schema.type === undefined || schema.type === kind || (schema.type === 'number' && kind === 'integer');
  if (!ok) return [`${path}: ${kind} is not ${String(schema.type)}`];
  if (kind === 'array' && schema.items) return (value as unknown[]).flatMap((v, i) => violations(v, schema.items!, `${path}[${i}]`));
  if (kind === 'object' && schema.properties) {
    const object = value as Record<string, unknown>;
    const missing = (schema.required ?? []).filter((k) => !(k in object)).map((k) => `${path}.${k}: missing`);
    const extra = Object.keys(object)
      .filter((k) => !(k in schema.properties!))
      .map((k) => `${path}.${k}: not described`);
    return [
      ...missing,
      ...extra,
      ...Object.entries(schema.properties).flatMap(([k, s]) => (k in object ? violations(object[k], s, `${path}.${k}`) : [])),
    ];
  }
  return [];
}

describe('GET /openapi.json', () => {
  it('describes every REST route at version 1.0.0', async () => {
    const res = await server.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.info.version).toBe('1.0.0');
    const operations = Object.values(res.body.paths as Record<string, object>).flatMap((p) => Object.keys(p));
    expect(operations).toHaveLength(restRoutes.length);
    const nearby = res.body.paths['/api/v1/stores/nearby'].get;
    expect(nearby.parameters.find((p: { name: string }) => p.name === 'lat')).toEqual({
      name: 'lat',
      in: 'query',
      required: true,
      schema: { type: 'number' },
    });
    const checkout = res.body.paths['/api/v1/customer/orders'].post;
    expect(checkout.requestBody.content['application/json'].schema.required).toEqual(['store_id', 'address_id', 'items']);
    expect(checkout.parameters).toEqual([{ name: 'idempotency-key', in: 'header', required: false, schema: { type: 'string' } }]);
    expect(checkout.security).toEqual([{ bearer: [] }]);
  });

  it('matches what the endpoints answer', async () => {
    // The checker itself notices a difference.
    expect(violations({ a: 1.5, b: null }, { type: 'object', properties: { a: { type: 'integer' } }, required: ['a', 'c'] })).toEqual([
      '$.c: missing',
      '$.b: not described',
      '$.a: number is not integer',
    ]);
    const doc = (await server.http.get('/openapi.json')).body;
    const w = await orderWorld(server, make);
    const orderId = (await placeOrder(server, w)).body.data.order_id;
    const { lat, lng } = { lat: w.owner.store.latitude, lng: w.owner.store.longitude };
    const calls: [string, string, () => Promise<{ status: number; body: unknown }>][] = [
      ['/api/v1/homepage', 'get', () => server.http.get(`/api/v1/homepage?lat=${lat}&lng=${lng}`)],
      ['/api/v1/stores/nearby', 'get', () => server.http.get(`/api/v1/stores/nearby?lat=${lat}&lng=${lng}`)],
      ['/api/v1/store/stores/{id}/catalog', 'get', () => server.http.get(`/api/v1/store/stores/${w.owner.store.id}/catalog`)],
      ['/api/v1/customer/orders/{id}', 'get', () => server.http.get(`/api/v1/customer/orders/${orderId}`, { token: w.customer.token })],
      ['/api/v1/customer/orders', 'get', () => server.http.get('/api/v1/customer/orders', { token: w.customer.token })],
      ['/v1/auth/customer/me', 'get', () => server.http.get('/v1/auth/customer/me', { token: w.customer.token })],
    ];
    for (const [path, method, call] of calls) {
      const res = await call();
      const schema = doc.paths[path][method].responses[String(res.status)].content['application/json'].schema;
      expect({ path, problems: violations(res.body, schema) }).toEqual({ path, problems: [] });
    }
  });
});
