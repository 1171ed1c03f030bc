/**
 * Cost control (issue 10, findings 1 and 9): aliases, root fields, tokens, directives and a
 * cost budget are refused before execution on /graphql, the websocket and the REST table; in
 * production validation messages carry no field suggestions.
 */
import { buildAppSchema } from '../src/schema';
import { LIMITS } from '../src/graphql/limits';
import { compileRoutes } from '../src/rest/adapter';
import { restRoutes } from '../src/routes';
import { registerCustomer } from './helpers/auth';
import { useTestServer } from './helpers/setup';
import { startTestServer, TestServer } from './helpers/server';
import { countStatements } from './helpers/statements';
import { initSocket, RawSocket, until } from './helpers/ws';

let server: TestServer;
useTestServer((s) => {
  server = s;
});

const sockets: RawSocket[] = [];
afterEach(() => {
  sockets.splice(0).forEach((s) => s.socket.terminate());
});

const repeat = (n: number, part: (i: number) => string) => Array.from({ length: n }, (_, i) => part(i)).join(' ');
/** `[[[…1…]]]`, n levels deep. */
const nested = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
const tooDeepInput = {
  errors: [
    {
      message: `Input value depth limit of ${LIMITS.inputDepth} exceeded.`,
      extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'inputDepth' },
    },
  ],
};
const refusedWith = (body: any, limit: string) =>
  expect(body).toEqual({
    errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'QUERY_TOO_COMPLEX', limit }) })],
  });

/** Every field of a product and of its store: a wide object to nest. */
const PRODUCT = `id name description price image isActive isFeatured sortOrder storeId menuCategoryId
  store { id name slug address description latitude longitude rating ratingCount deliveryPrice deliveryTime
    deliveryRadiusKm freeDelivery isOpen isActive logo image timezone categoryId categoryName createdAt updatedAt
    offers { id title description discount token image storeId } }
  supplements { id name price } optionGroups { id name isRequired minSelect maxSelect values { id name price } }`;

describe('POST /graphql', () => {
  it('refuses 1,500 aliased search fields (63 kB) before anything runs', async () => {
    const query = `query { ${repeat(1500, (i) => `s${i}: search(q: "pizza") { stores { id } }`)} }`;
    expect(query.length).toBeGreaterThan(60_000);
    const { count, result: res } = await countStatements(server.db.orm, () => server.http.graphql(query));
    expect(res.status).toBe(400);
    refusedWith(res.body, 'tokens');
    expect(res.body.errors[0].message).toBe(`Token limit of ${LIMITS.tokens} exceeded.`);
    // Not one search ran (no statement was sent).
    expect(count).toBe(0);
  });

  it('refuses more aliases than the limit, even under the token limit', async () => {
    const res = await server.http.graphql(`query { mainCategories { ${repeat(LIMITS.aliases + 1, (i) => `a${i}: id`)} } }`);
    expect(res.status).toBe(400);
    refusedWith(res.body, 'aliases');
    expect(res.body.errors[0].message).toBe(`Aliases limit of ${LIMITS.aliases} exceeded, found ${LIMITS.aliases + 1}.`);
  });

  it('refuses more root fields than the limit, counting fragments', async () => {
    const res = await server.http.graphql(
      `query { ...Roots } fragment Roots on Query { ${repeat(LIMITS.rootFields + 1, (i) => `r${i}: mainCategories { id }`)} }`,
    );
    expect(res.status).toBe(400);
    refusedWith(res.body, 'rootFields');
    const within = await server.http.graphql(`query { ${repeat(LIMITS.rootFields, (i) => `r${i}: mainCategories { id }`)} }`);
    expect(within.body.errors).toBeUndefined();
    expect(within.body.data.r0).toEqual([]);
  });

  it('refuses more directives than the limit', async () => {
    const res = await server.http.graphql(
      `query { mainCategories { id ${repeat(LIMITS.directives + 1, () => '__typename @include(if: true)')} } }`,
    );
    expect(res.status).toBe(400);
    refusedWith(res.body, 'directives');
  });

  it('refuses a document over the cost budget that breaks no other limit', async () => {
    // Eight catalogs with every product field: within the root-field, alias and depth limits.
    const catalog = (i: number) => `c${i}: catalog(storeId: ${i + 1}) { menus { categories { products { ${PRODUCT} } } } }`;
    const query = `query { ${repeat(8, catalog)} }`;
    const res = await server.http.graphql(query);
    expect(res.status).toBe(400);
    refusedWith(res.body, 'cost');
    expect(res.body.errors[0].message).toMatch(new RegExp(`^Query Cost limit of ${LIMITS.cost} exceeded, found \\d+`));
  });

  it('refuses a 10,000-deep list literal before parsing it, by the depth of input values', async () => {
    const query = `query { search(q: ${nested(10_000)}) { stores { id } } }`;
    const { count, result: res } = await countStatements(server.db.orm, () => server.http.graphql(query));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(tooDeepInput);
    expect(count).toBe(0);
    // Just over the limit (well under the token limit), an object literal, a list type, and over GET.
    for (const deep of [
      `query { search(q: ${nested(LIMITS.inputDepth + 1)}) { stores { id } } }`,
      `query { search(q: ${'{ a: '.repeat(LIMITS.inputDepth + 1)}1${' }'.repeat(LIMITS.inputDepth + 1)}) { stores { id } } }`,
      `query($q: ${'['.repeat(LIMITS.inputDepth + 1)}String${']'.repeat(LIMITS.inputDepth + 1)}) { search(q: $q) { stores { id } } }`,
    ]) {
      const refused = await server.http.graphql(deep);
      expect([refused.status, refused.body]).toEqual([400, tooDeepInput]);
    }
    const [before, after] = ['{ search(q: ', ') { stores { id } } }'].map(encodeURIComponent);
    const get = await server.http.get(`/graphql?query=${before}${nested(5_000)}${after}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect([get.status, get.body]).toEqual([400, tooDeepInput]);
    // At the limit the document parses: graphql-js then says what is wrong with it.
    const within = await server.http.graphql(`query { search(q: ${nested(LIMITS.inputDepth)}) { stores { id } } }`);
    expect(within.status).toBe(400);
    expect(within.body.errors[0].message).toMatch(/^String cannot represent a non string value/);
  });

  it("answers a variable's many problems with a few errors, each echoing a bounded part of the value (100 kB in was 4 MB out)", async () => {
    const input: Record<string, unknown> = { phoneNumber: 'x'.repeat(20_000) };
    for (let i = 0; i < 6000; i++) input[`k${i}`] = 1;
    const res = await server.http.graphql(`mutation($i: SendOtpInput!) { sendOtp(input: $i) { message } }`, { i: input });
    expect(res.status).toBe(400);
    expect(res.body.errors.length).toBeLessThanOrEqual(4);
    expect(res.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^Variable "\$i" got invalid value .*Field "k0" is not defined/s),
    });
    expect(res.body.errors[0].message.length).toBeLessThanOrEqual(1000);
    expect(JSON.stringify(res.body).length).toBeLessThan(5000);
  });

  it('keeps the depth rule and its code', async () => {
    const res = await server.http.graphql(
      `query { __schema { types { fields { type { ${'ofType { '.repeat(9)}name${' }'.repeat(9)} } } } } }`,
    );
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
  });
});

describe('the websocket', () => {
  it('refuses an alias flood in onSubscribe with the same code, and the socket stays usable', async () => {
    const { token } = await registerCustomer(server);
    const raw = await initSocket(server.wsUrl, token);
    sockets.push(raw);
    raw.send({
      id: '1',
      type: 'subscribe',
      payload: { query: `subscription { driverOrderUpdates { ${repeat(LIMITS.aliases + 1, (i) => `a${i}: seq`)} } }` },
    });
    const error = await raw.next('error');
    expect(error).toMatchObject({
      id: '1',
      payload: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'QUERY_TOO_COMPLEX' }) })],
    });
    raw.send({
      id: '2',
      type: 'subscribe',
      payload: { query: `subscription { driverOrderUpdates { ${repeat(1500, (i) => `a${i}: seq`)} } }` },
    });
    await until(() => raw.messages.filter((m) => m.type === 'error').length === 2, 'the second refusal');
    expect(raw.messages.filter((m) => m.type === 'error').map((m) => [m.id, m.payload[0].extensions])).toEqual([
      ['1', { code: 'QUERY_TOO_COMPLEX', limit: 'aliases' }],
      // 1,500 aliases are ~11 kB, within the frame limit: refused by the token limit.
      ['2', { code: 'QUERY_TOO_COMPLEX', limit: 'tokens' }],
    ]);
  });

  it('refuses a 10,000-deep list literal in onSubscribe with the same answer, and the socket stays usable', async () => {
    const { token } = await registerCustomer(server);
    const raw = await initSocket(server.wsUrl, token);
    sockets.push(raw);
    raw.send({ id: '1', type: 'subscribe', payload: { query: `subscription { orderUpdates(orderId: ${nested(10_000)}) { seq } }` } });
    expect(await raw.next('error')).toEqual({ id: '1', type: 'error', payload: tooDeepInput.errors });
    raw.send({ id: '2', type: 'subscribe', payload: { query: `subscription { orderUpdates(orderId: 999999) { seq } }` } });
    await until(() => raw.messages.some((m) => m.id === '2'), 'an answer to the next subscription');
    expect(raw.socket.readyState).toBe(raw.socket.OPEN);
  });
  it("answers a subscription's many variable problems with a few errors, each bounded, as /graphql does", async () => {
    const { token } = await registerCustomer(server);
    const raw = await initSocket(server.wsUrl, token);
    sockets.push(raw);
    const big: Record<string, number> = {};
    for (let i = 0; i < 200; i++) big[`k${i}`] = 1;
    const names = Array.from({ length: 10 }, (_, i) => `a${i}`);
    const used = names.slice(1).map((n, i) => `s${i}: seq @include(if: $${n})`);
    const query = `subscription($a0: Int!, ${names
      .slice(1)
      .map((n) => `$${n}: Boolean!`)
      .join(', ')}) { orderUpdates(orderId: $a0) { ${used.join(' ')} } }`;
    raw.send({ id: '1', type: 'subscribe', payload: { query, variables: Object.fromEntries(names.map((n) => [n, big])) } });
    const answer = await raw.next('error');
    expect(answer.payload.length).toBeLessThanOrEqual(4);
    expect(JSON.stringify(answer).length).toBeLessThan(5000);
  });
});

describe('the REST route table', () => {
  it('holds every row to the same limits when it compiles (a row over them fails the boot)', async () => {
    const schema = await buildAppSchema();
    expect(() => compileRoutes(schema, restRoutes)).not.toThrow();
    const flood = {
      method: 'GET' as const,
      path: '/x',
      document: `query { mainCategories { ${repeat(LIMITS.aliases + 1, (i) => `a${i}: id`)} } }`,
    };
    expect(() => compileRoutes(schema, [flood])).toThrow(/Aliases limit of 60 exceeded/);
    const deep = { method: 'GET' as const, path: '/y', document: `query { search(q: ${nested(10_000)}) { stores { id } } }` };
    expect(() => compileRoutes(schema, [deep])).toThrow(/Input value depth limit of 16 exceeded/);
  });

  it("parses no GraphQL from a request: a 10,000-deep JSON body is read by the row's types (422 naming the field)", async () => {
    const { token } = await registerCustomer(server);
    const res = await server.http.post('/api/v1/customer/orders', undefined, {
      token,
      raw: `{"store_id": 1, "address_id": 1, "items": ${nested(10_000)}}`,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ 'items.0': ['The items.0 must be an object.'] });
  });
});

describe('field suggestions', () => {
  const typo = 'query { mainCategorie { id } }';

  it('are given in development and test', async () => {
    const res = await server.http.graphql(typo);
    expect(res.body.errors[0].message).toMatch(/Did you mean "mainCategories"/);
  });

  it('are not given in production, over HTTP or the websocket', async () => {
    const production = await startTestServer(
      { NODE_ENV: 'production', DATABASE_URL: 'postgresql://unused@127.0.0.1/unused', OTP_TEST_NUMBERS: '' },
      server.db,
    );
    try {
      const res = await production.http.graphql(typo);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toBe('Cannot query field "mainCategorie" on type "Query".');
      const argument = await production.http.graphql('query { search(qq: "a") { stores { id } } }');
      expect(JSON.stringify(argument.body)).not.toMatch(/Did you mean/);

      const customer = await registerCustomerOn(production);
      const raw = await initSocket(production.wsUrl, customer);
      sockets.push(raw);
      raw.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { orderUpdate(orderId: 1) { seq } }' } });
      const error = await raw.next('error');
      expect(error.payload[0].message).toBe('Cannot query field "orderUpdate" on type "Subscription".');
    } finally {
      await production.close();
    }
  });
});

/** Production has no fixed test codes: the code is read from the WhatsApp fake. */
async function registerCustomerOn(target: TestServer): Promise<string> {
  return (await registerCustomer(target)).token;
}
