/** Saved delivery addresses under /api/v1/customer: each customer sees only their own. */
import { registerCustomer, SignedIn } from './helpers/auth';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';

let server: TestServer;
let me: SignedIn;

useTestServer((s) => {
  server = s;
});
beforeEach(async () => {
  me = await registerCustomer(server);
});

const home = {
  label: 'Home',
  line1: '12 Rue Tarik',
  line2: 'Apt 4',
  city: 'Casablanca',
  latitude: 33.59,
  longitude: -7.61,
  instructions: 'Ring twice',
};
const create = (body: object, token = me.token) => server.http.post('/api/v1/customer/addresses', body, { token });

describe('POST /api/v1/customer/addresses', () => {
  it('answers 201 with the saved address', async () => {
    const res = await create(home);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Address saved.',
      data: { id: expect.any(Number), ...home, created_at: expect.any(String) },
    });
  });

  it('answers 422 naming missing or out-of-range fields, and 401 without a token', async () => {
    const res = await create({ label: 'Home', latitude: 120 });
    expect(res.status).toBe(422);
    // Missing fields and the range rule of what was sent, at once (docs/decisions.md).
    expect(Object.keys(res.body.errors).sort()).toEqual(['latitude', 'line1', 'longitude']);
    const range = await create({ ...home, latitude: 120 });
    expect(Object.keys(range.body.errors)).toEqual(['latitude']);
    expect((await server.http.post('/api/v1/customer/addresses', home)).status).toBe(401);
  });
});

describe('GET /api/v1/customer/addresses', () => {
  it("answers the caller's addresses only", async () => {
    const mine = await create(home);
    const other = await registerCustomer(server);
    await create({ ...home, label: 'Theirs' }, other.token);
    const res = await server.http.get('/api/v1/customer/addresses', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((a: { id: number }) => a.id)).toEqual([mine.body.data.id]);
  });
});

describe('GET /api/v1/customer/addresses/{id}', () => {
  it("answers 200 for one's own and 404 for another's", async () => {
    const mine = await create(home);
    expect((await server.http.get(`/api/v1/customer/addresses/${mine.body.data.id}`, { token: me.token })).body.data.label).toBe('Home');
    const other = await registerCustomer(server);
    const res = await server.http.get(`/api/v1/customer/addresses/${mine.body.data.id}`, { token: other.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: `No query results for model [UserAddress] ${mine.body.data.id}` });
  });
});

describe('PUT /api/v1/customer/addresses/{id}', () => {
  it('changes only the fields given; 404 for another customer', async () => {
    const mine = await create(home);
    const res = await server.http.put(
      `/api/v1/customer/addresses/${mine.body.data.id}`,
      { label: 'Parents', line2: null },
      { token: me.token },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ label: 'Parents', line1: '12 Rue Tarik', line2: null, city: 'Casablanca' });
    const other = await registerCustomer(server);
    expect(
      (await server.http.put(`/api/v1/customer/addresses/${mine.body.data.id}`, { label: 'Mine' }, { token: other.token })).status,
    ).toBe(404);
  });
});

describe('DELETE /api/v1/customer/addresses/{id}', () => {
  it('answers 200 and removes it; 404 for another customer', async () => {
    const mine = await create(home);
    const other = await registerCustomer(server);
    expect((await server.http.delete(`/api/v1/customer/addresses/${mine.body.data.id}`, { token: other.token })).status).toBe(404);
    const res = await server.http.delete(`/api/v1/customer/addresses/${mine.body.data.id}`, { token: me.token });
    expect(res.body).toEqual({ success: true, message: 'Address deleted.' });
    expect((await server.http.get('/api/v1/customer/addresses', { token: me.token })).body.data).toEqual([]);
  });
});

describe('GraphQL addresses', () => {
  it('creates and lists over /graphql', async () => {
    const created = await server.http.graphql(
      `mutation($input: AddressInput!) { createAddress(input: $input) { address { id label } } }`,
      { input: { label: 'Work', line1: '1 Bd Zerktouni', latitude: 33.58, longitude: -7.63 } },
      { token: me.token },
    );
    expect(created.body.data.createAddress.address.label).toBe('Work');
    const listed = await server.http.graphql(`{ addresses { label } }`, undefined, { token: me.token });
    expect(listed.body.data.addresses).toEqual([{ label: 'Work' }]);
    const anonymous = await server.http.graphql(`{ addresses { label } }`);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
