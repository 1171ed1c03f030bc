/**
 * Spec §5 items 3 and 5: every store-side change needs a token and ownership. A matrix of
 * actors × operations; each denied cell must leave the database exactly as it was.
 */
import { registerCustomer } from './helpers/auth';
import { Factory } from './helpers/factories';
import { makeOwner, managedTablesFingerprint } from './helpers/owners';
import { startTestServer, TestServer } from './helpers/server';
import { HttpAnswer } from './helpers/http';

let server: TestServer;
let make: Factory;

beforeAll(async () => {
  server = await startTestServer();
  make = new Factory(server.db);
});
afterAll(async () => {
  await server?.close();
});

type Actor = 'anonymous' | 'customer' | 'owner of store A' | 'owner of store B';

/** Store A with a menu, a category and an offer; store B with its own owner. */
async function world() {
  await server.reset();
  const ownerA = await makeOwner(server, make);
  const ownerB = await makeOwner(server, make);
  const customer = await registerCustomer(server);
  const menu = await make.menu(ownerA.store);
  const category = await make.menuCategory(menu);
  const offer = await make.offer({ storeId: ownerA.store.id });
  const tokens: Record<Actor, string | undefined> = {
    anonymous: undefined,
    customer: customer.token,
    'owner of store A': ownerA.token,
    'owner of store B': ownerB.token,
  };
  return { store: ownerA.store, menu, category, offer, tokens };
}

type World = Awaited<ReturnType<typeof world>>;

const operations: [string, number, (w: World, token?: string) => Promise<HttpAnswer>][] = [
  ['create menu', 201, (w, token) => server.http.post('/api/v1/store/menus', { store_id: w.store.id, name: 'New' }, { token })],
  [
    'update menu',
    200,
    (w, token) => server.http.put(`/api/v1/store/menus/${w.menu.id}`, { store_id: w.store.id, name: 'Renamed' }, { token }),
  ],
  ['delete menu', 200, (w, token) => server.http.delete(`/api/v1/store/menus/${w.menu.id}`, { token })],
  [
    'create menu category',
    201,
    (w, token) => server.http.post('/api/v1/store/menu-categories', { name: 'New', menu_id: w.menu.id }, { token }),
  ],
  [
    'update menu category',
    200,
    (w, token) => server.http.put(`/api/v1/store/menu-categories/${w.category.id}`, { name: 'Renamed' }, { token }),
  ],
  ['delete menu category', 200, (w, token) => server.http.delete(`/api/v1/store/menu-categories/${w.category.id}`, { token })],
  ['create category', 201, (w, token) => server.http.post('/api/v1/store/categories', { store_id: w.store.id, name: 'New' }, { token })],
  ['update category', 200, (w, token) => server.http.put(`/api/v1/store/categories/${w.category.id}`, { name: 'Renamed' }, { token })],
  ['delete category', 200, (w, token) => server.http.delete(`/api/v1/store/categories/${w.category.id}`, { token })],
  [
    'create offer',
    201,
    (w, token) => server.http.post('/api/v1/store/offers', { store_id: w.store.id, title: 'New', discount: 10 }, { token }),
  ],
  ['update offer', 200, (w, token) => server.http.put(`/api/v1/store/offers/${w.offer.id}`, { discount: 30 }, { token })],
  ['delete offer', 200, (w, token) => server.http.delete(`/api/v1/store/offers/${w.offer.id}`, { token })],
];

const expected: Record<Actor, number | 'success'> = {
  anonymous: 401,
  customer: 403,
  'owner of store A': 'success',
  'owner of store B': 403,
};

describe.each(operations)('%s', (_name, successStatus, run) => {
  it.each(Object.keys(expected) as Actor[])('as %s', async (actor) => {
    const w = await world();
    const before = await managedTablesFingerprint(server);
    const res = await run(w, w.tokens[actor]);
    const status = expected[actor] === 'success' ? successStatus : expected[actor];
    expect(res.status).toBe(status);
    if (status >= 400) {
      expect(res.body).toEqual({ message: expect.any(String) });
      expect(await managedTablesFingerprint(server)).toBe(before);
    } else {
      expect(await managedTablesFingerprint(server)).not.toBe(before);
    }
  });
});
