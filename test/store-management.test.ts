/** Spec §4.2 store management (all rows but accept/reject), over REST, one describe per row. */
import { Factory } from './helpers/factories';
import { makeOwner, Owner } from './helpers/owners';
import { registerCustomer } from './helpers/auth';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';

let server: TestServer;
let make: Factory;
let owner: Owner;

useTestServer((s, f) => {
  server = s;
  make = f;
});
beforeEach(async () => {
  owner = await makeOwner(server, make);
});

const as = (token?: string) => ({ token });
const sql = (query: string, params: unknown[] = []) => server.db.orm.em.fork().execute(query, params);

describe('POST /api/v1/store/menus', () => {
  it('answers 201 with the new menu', async () => {
    const res = await server.http.post('/api/v1/store/menus', { store_id: owner.store.id, name: 'Lunch', description: 'Noon to 3', is_active: false }, as(owner.token));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Menu created.',
      data: { id: expect.any(Number), store_id: owner.store.id, name: 'Lunch', description: 'Noon to 3', is_active: false, sort_order: 0 },
    });
  });

  it('answers 422 when store_id or name is missing', async () => {
    const res = await server.http.post('/api/v1/store/menus', { description: 'x' }, as(owner.token));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ store_id: ['The store_id field is required.'], name: ['The name field is required.'] });
  });

  it('answers 401 without a token, 403 for a store of someone else, 404 for an unknown store', async () => {
    expect((await server.http.post('/api/v1/store/menus', { store_id: owner.store.id, name: 'X' })).status).toBe(401);
    const other = await make.store();
    const forbidden = await server.http.post('/api/v1/store/menus', { store_id: other.id, name: 'X' }, as(owner.token));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: 'You do not own this store.' });
    const missing = await server.http.post('/api/v1/store/menus', { store_id: 999999, name: 'X' }, as(owner.token));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [Store] 999999' });
    expect(await sql('select * from menus')).toHaveLength(0);
  });
});

describe('GET /api/v1/store/menus', () => {
  it("answers a store's active menus to anyone, and all of them to its owner", async () => {
    const active = await make.menu(owner.store, { name: 'Active', sortOrder: 1 });
    const hidden = await make.menu(owner.store, { name: 'Hidden', isActive: false, sortOrder: 2 });
    const anonymous = await server.http.get(`/api/v1/store/menus?store_id=${owner.store.id}`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data.menus.map((m: { id: number }) => m.id)).toEqual([active.id]);
    const mine = await server.http.get(`/api/v1/store/menus?store_id=${owner.store.id}`, as(owner.token));
    expect(mine.body.data.menus.map((m: { id: number }) => m.id)).toEqual([active.id, hidden.id]);
  });

  it("answers the caller's own menus without store_id", async () => {
    const menu = await make.menu(owner.store);
    await make.menu(await make.store());
    const mine = await server.http.get('/api/v1/store/menus', as(owner.token));
    expect(mine.status).toBe(200);
    expect(mine.body.data.menus.map((m: { id: number }) => m.id)).toEqual([menu.id]);
  });
});

describe('GET /api/v1/store/menus/{id}', () => {
  it('answers 200 with the menu and its categories', async () => {
    const menu = await make.menu(owner.store, { name: 'Dinner' });
    const category = await make.menuCategory(menu, { name: 'Mains' });
    const res = await server.http.get(`/api/v1/store/menus/${menu.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: menu.id,
      store_id: owner.store.id,
      name: 'Dinner',
      description: null,
      is_active: true,
      sort_order: 0,
      categories: [{ id: category.id, store_id: owner.store.id, menu_id: menu.id, name: 'Mains', sort_order: 0 }],
    });
  });

  it('answers 404 for an unknown menu, and for an inactive one unless the caller owns it', async () => {
    const missing = await server.http.get('/api/v1/store/menus/424242');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [Menu] 424242' });
    const hidden = await make.menu(owner.store, { isActive: false });
    expect((await server.http.get(`/api/v1/store/menus/${hidden.id}`)).status).toBe(404);
    expect((await server.http.get(`/api/v1/store/menus/${hidden.id}`, as(owner.token))).status).toBe(200);
  });
});

describe('PUT /api/v1/store/menus/{id}', () => {
  it('answers 200 and changes only the fields given', async () => {
    const menu = await make.menu(owner.store, { name: 'Old', description: 'Keep me' });
    const res = await server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: owner.store.id, is_active: false }, as(owner.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Menu updated.',
      data: { id: menu.id, store_id: owner.store.id, name: 'Old', description: 'Keep me', is_active: false, sort_order: 0 },
    });
    const renamed = await server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: owner.store.id, name: 'New', description: null }, as(owner.token));
    expect(renamed.body.data).toMatchObject({ name: 'New', description: null, is_active: false });
  });

  it('answers 422 when store_id is missing, is another store, or name is blank or null', async () => {
    const menu = await make.menu(owner.store, { name: 'Same' });
    const missing = await server.http.put(`/api/v1/store/menus/${menu.id}`, { name: 'X' }, as(owner.token));
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ store_id: ['The store_id field is required.'] });
    const mine = await make.store();
    await sql('update stores set owner_id = ? where id = ?', [owner.user.id, mine.id]);
    const moved = await server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: mine.id }, as(owner.token));
    expect(moved.status).toBe(422);
    expect(Object.keys(moved.body.errors)).toEqual(['store_id']);
    const blank = await server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: owner.store.id, name: '  ' }, as(owner.token));
    expect(blank.status).toBe(422);
    expect(Object.keys(blank.body.errors)).toEqual(['name']);
    const nulled = await server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: owner.store.id, name: null }, as(owner.token));
    expect(nulled.status).toBe(422);
    expect(await sql('select name, store_id from menus')).toEqual([{ name: 'Same', store_id: owner.store.id }]);
  });

  it('answers 403 when the caller is not the owner, 404 for an unknown menu', async () => {
    const other = await makeOwner(server, make);
    const menu = await make.menu(other.store);
    const res = await server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: other.store.id, name: 'Mine now' }, as(owner.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'You do not own this store.' });
    expect((await server.http.put('/api/v1/store/menus/999999', { store_id: owner.store.id }, as(owner.token))).status).toBe(404);
  });
});

describe('DELETE /api/v1/store/menus/{id}', () => {
  it('answers 200, removing the menu and its empty categories', async () => {
    const menu = await make.menu(owner.store);
    await make.menuCategory(menu);
    const res = await server.http.delete(`/api/v1/store/menus/${menu.id}`, as(owner.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Menu deleted.' });
    expect(await sql('select * from menus')).toHaveLength(0);
    expect(await sql('select * from menu_categories')).toHaveLength(0);
  });

  it('answers 409 while the menu holds products, and 404 for an unknown menu', async () => {
    const menu = await make.menu(owner.store);
    await make.product(await make.menuCategory(menu));
    const res = await server.http.delete(`/api/v1/store/menus/${menu.id}`, as(owner.token));
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/holds 1 product/);
    expect(await sql('select * from menus')).toHaveLength(1);
    expect((await server.http.delete('/api/v1/store/menus/999999', as(owner.token))).status).toBe(404);
  });
});

describe('POST /api/v1/store/menu-categories', () => {
  it('answers 201 with a category placed in a menu (its store is the menu’s)', async () => {
    const menu = await make.menu(owner.store);
    const res = await server.http.post('/api/v1/store/menu-categories', { name: 'Starters', menu_id: menu.id }, as(owner.token));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Category created.',
      data: { id: expect.any(Number), store_id: owner.store.id, menu_id: menu.id, name: 'Starters', sort_order: 0 },
    });
  });

  it('answers 422 without name, or without menu_id and store_id', async () => {
    const noName = await server.http.post('/api/v1/store/menu-categories', { menu_id: 1 }, as(owner.token));
    expect(noName.status).toBe(422);
    expect(noName.body.errors).toEqual({ name: ['The name field is required.'] });
    const nowhere = await server.http.post('/api/v1/store/menu-categories', { name: 'Loose' }, as(owner.token));
    expect(nowhere.status).toBe(422);
    expect(Object.keys(nowhere.body.errors)).toEqual(['store_id']);
    const loose = await server.http.post('/api/v1/store/menu-categories', { name: 'Loose', store_id: owner.store.id }, as(owner.token));
    expect(loose.status).toBe(201);
    expect(loose.body.data.menu_id).toBeNull();
  });

  it('answers 403 for a menu of another store', async () => {
    const menu = await make.menu(await make.store());
    const res = await server.http.post('/api/v1/store/menu-categories', { name: 'X', menu_id: menu.id }, as(owner.token));
    expect(res.status).toBe(403);
    expect(await sql('select * from menu_categories')).toHaveLength(0);
  });
});

describe('GET /api/v1/store/menu-categories', () => {
  it("answers a menu's or a store's categories", async () => {
    const menu = await make.menu(owner.store);
    const hiddenMenu = await make.menu(owner.store, { isActive: false });
    const a = await make.menuCategory(menu, { sortOrder: 2 });
    const b = await make.menuCategory(menu, { sortOrder: 1 });
    const hidden = await make.menuCategory(hiddenMenu);
    const byMenu = await server.http.get(`/api/v1/store/menu-categories?menu_id=${menu.id}`);
    expect(byMenu.status).toBe(200);
    expect(byMenu.body.data.menu_categories.map((c: { id: number }) => c.id)).toEqual([b.id, a.id]);
    const byStore = await server.http.get(`/api/v1/store/menu-categories?store_id=${owner.store.id}`);
    expect(byStore.body.data.menu_categories.map((c: { id: number }) => c.id)).toEqual([b.id, a.id]);
    const asOwner = await server.http.get(`/api/v1/store/menu-categories?store_id=${owner.store.id}`, as(owner.token));
    expect(asOwner.body.data.menu_categories.map((c: { id: number }) => c.id).sort()).toEqual([a.id, b.id, hidden.id].sort());
  });
});

describe('GET /api/v1/store/menu-categories/{id}', () => {
  it('answers 200, or 404 naming the model', async () => {
    const category = await make.menuCategory(await make.menu(owner.store), { name: 'Sides' });
    const res = await server.http.get(`/api/v1/store/menu-categories/${category.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: category.id, store_id: owner.store.id, menu_id: category.menu.id, name: 'Sides', sort_order: 0 });
    const missing = await server.http.get('/api/v1/store/menu-categories/777777');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [MenuCategory] 777777' });
  });
});

describe('PUT /api/v1/store/menu-categories/{id}', () => {
  it('answers 200, renaming and moving to another menu of the same store', async () => {
    const first = await make.menu(owner.store);
    const second = await make.menu(owner.store);
    const category = await make.menuCategory(first, { name: 'Old' });
    const res = await server.http.put(`/api/v1/store/menu-categories/${category.id}`, { name: 'New', menu_id: second.id }, as(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: category.id, name: 'New', menu_id: second.id, store_id: owner.store.id });
  });

  it('answers 404 for an unknown category, 403 for another owner’s, 422 for a menu of another store', async () => {
    expect((await server.http.put('/api/v1/store/menu-categories/999999', { name: 'X' }, as(owner.token))).status).toBe(404);
    const theirs = await make.menuCategory(await make.menu(await make.store()));
    expect((await server.http.put(`/api/v1/store/menu-categories/${theirs.id}`, { name: 'X' }, as(owner.token))).status).toBe(403);
    const mine = await make.menuCategory(await make.menu(owner.store));
    const elsewhere = await make.menu(await make.store());
    const res = await server.http.put(`/api/v1/store/menu-categories/${mine.id}`, { menu_id: elsewhere.id }, as(owner.token));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['menu_id']);
  });
});

describe('DELETE /api/v1/store/menu-categories/{id}', () => {
  it('answers 200 for an empty category, 409 while it holds products, 404 for an unknown one', async () => {
    const menu = await make.menu(owner.store);
    const empty = await make.menuCategory(menu);
    const full = await make.menuCategory(menu);
    await make.product(full);
    const ok = await server.http.delete(`/api/v1/store/menu-categories/${empty.id}`, as(owner.token));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true, message: 'Category deleted.' });
    expect((await server.http.delete(`/api/v1/store/menu-categories/${full.id}`, as(owner.token))).status).toBe(409);
    expect((await server.http.delete('/api/v1/store/menu-categories/999999', as(owner.token))).status).toBe(404);
    expect(await sql('select id from menu_categories')).toEqual([{ id: full.id }]);
  });
});

describe('GET /api/v1/store/categories', () => {
  it("answers the caller's categories, of all their stores or of one", async () => {
    const mine = await make.menuCategory(await make.menu(owner.store));
    await make.menuCategory(await make.menu(await make.store()));
    const res = await server.http.get('/api/v1/store/categories', as(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([mine.id]);
    const one = await server.http.get(`/api/v1/store/categories?store_id=${owner.store.id}`, as(owner.token));
    expect(one.body.data.map((c: { id: number }) => c.id)).toEqual([mine.id]);
  });

  it('answers 401 without a token and 403 for a store of someone else', async () => {
    expect((await server.http.get('/api/v1/store/categories')).status).toBe(401);
    const other = await make.store();
    expect((await server.http.get(`/api/v1/store/categories?store_id=${other.id}`, as(owner.token))).status).toBe(403);
  });
});

describe('POST /api/v1/store/categories', () => {
  it('answers 201 with a category of the store', async () => {
    const res = await server.http.post('/api/v1/store/categories', { store_id: owner.store.id, name: 'Drinks' }, as(owner.token));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: expect.any(Number), store_id: owner.store.id, menu_id: null, name: 'Drinks', sort_order: 0 });
  });

  it('answers 422 without store_id or name, 401 without a token, 403 for another store', async () => {
    const invalid = await server.http.post('/api/v1/store/categories', {}, as(owner.token));
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors).sort()).toEqual(['name', 'store_id']);
    expect((await server.http.post('/api/v1/store/categories', { store_id: owner.store.id, name: 'X' })).status).toBe(401);
    const other = await make.store();
    expect((await server.http.post('/api/v1/store/categories', { store_id: other.id, name: 'X' }, as(owner.token))).status).toBe(403);
  });
});

describe('GET /api/v1/store/categories/{id}', () => {
  it('answers 200 to the owner, 403 to anyone else, 404 for an unknown id', async () => {
    const category = await make.menuCategory(await make.menu(owner.store), { name: 'Mine' });
    const res = await server.http.get(`/api/v1/store/categories/${category.id}`, as(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: category.id, name: 'Mine' });
    const stranger = await registerCustomer(server);
    expect((await server.http.get(`/api/v1/store/categories/${category.id}`, as(stranger.token))).status).toBe(403);
    const missing = await server.http.get('/api/v1/store/categories/999999', as(owner.token));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [MenuCategory] 999999' });
  });
});

describe('PUT /api/v1/store/categories/{id}', () => {
  it('answers 200 with the change, 403 for a category of another owner', async () => {
    const category = await make.menuCategory(await make.menu(owner.store));
    const res = await server.http.put(`/api/v1/store/categories/${category.id}`, { name: 'Renamed', sort_order: 3 }, as(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Renamed', sort_order: 3 });
    const theirs = await make.menuCategory(await make.menu(await make.store()));
    expect((await server.http.put(`/api/v1/store/categories/${theirs.id}`, { name: 'X' }, as(owner.token))).status).toBe(403);
  });
});

describe('DELETE /api/v1/store/categories/{id}', () => {
  it('answers 200 and removes it', async () => {
    const category = await make.menuCategory(await make.menu(owner.store));
    const res = await server.http.delete(`/api/v1/store/categories/${category.id}`, as(owner.token));
    expect(res.status).toBe(200);
    expect(await sql('select * from menu_categories')).toHaveLength(0);
  });
});

describe('GET /api/v1/store/offers', () => {
  it('lists active offers only, filtered by store_id', async () => {
    const active = await make.offer({ storeId: owner.store.id, title: 'Now' });
    await make.offer({ storeId: owner.store.id, endsAt: new Date(Date.now() - 1000) });
    await make.offer({ storeId: owner.store.id, startsAt: new Date(Date.now() + 3_600_000) });
    const global = await make.offer({ title: 'Everyone' });
    const res = await server.http.get(`/api/v1/store/offers?store_id=${owner.store.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual([active.id]);
    const all = await server.http.get('/api/v1/store/offers');
    expect(all.body.data.map((o: { id: number }) => o.id)).toEqual([global.id, active.id]);
  });
});

describe('POST /api/v1/store/offers', () => {
  it('answers 201 with a generated unique token', async () => {
    const starts = new Date(Date.now() + 60_000).toISOString();
    const ends = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const res = await server.http.post(
      '/api/v1/store/offers',
      { title: 'Summer 15%', discount: 15, description: 'All pizzas', starts_at: starts, ends_at: ends },
      as(owner.token),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Offer created.',
      data: {
        id: expect.any(Number),
        title: 'Summer 15%',
        description: 'All pizzas',
        discount: 15,
        token: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
        image: null,
        store_id: owner.store.id,
        starts_at: starts,
        ends_at: ends,
      },
    });
    const second = await server.http.post('/api/v1/store/offers', { title: 'Another', discount: 5 }, as(owner.token));
    expect(second.body.data.token).not.toBe(res.body.data.token);
  });

  it.each([
    [{ discount: 10 }, ['title']],
    [{ title: 'No discount' }, ['discount']],
    [{ title: 'Zero', discount: 0 }, ['discount']],
    [{ title: 'Too much', discount: 150 }, ['discount']],
    [{ title: 'Words', discount: 'ten' }, ['discount']],
    [{ title: 'Bad date', discount: 10, starts_at: 'tomorrow' }, ['starts_at']],
    [{ title: 'Backwards', discount: 10, starts_at: '2030-02-01T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' }, ['ends_at']],
    [{ title: 'Over already', discount: 10, ends_at: '2020-01-01T00:00:00Z' }, ['ends_at']],
  ])('answers 422 for %j', async (body, fields) => {
    const res = await server.http.post('/api/v1/store/offers', body, as(owner.token));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(fields);
    expect(await sql('select * from offers')).toHaveLength(0);
  });

  it('needs store_id from an owner of several stores, and refuses callers who own none', async () => {
    const second = await make.store();
    await sql('update stores set owner_id = ? where id = ?', [owner.user.id, second.id]);
    const ambiguous = await server.http.post('/api/v1/store/offers', { title: 'X', discount: 10 }, as(owner.token));
    expect(ambiguous.status).toBe(422);
    expect(Object.keys(ambiguous.body.errors)).toEqual(['store_id']);
    const chosen = await server.http.post('/api/v1/store/offers', { title: 'X', discount: 10, store_id: second.id }, as(owner.token));
    expect(chosen.status).toBe(201);
    expect(chosen.body.data.store_id).toBe(second.id);
    const customer = await registerCustomer(server);
    expect((await server.http.post('/api/v1/store/offers', { title: 'X', discount: 10 }, as(customer.token))).status).toBe(403);
  });
});

describe('GET /api/v1/store/offers/{token}', () => {
  it('answers 200 with the offer, or 404', async () => {
    const offer = await make.offer({ storeId: owner.store.id, title: 'By token' });
    const res = await server.http.get(`/api/v1/store/offers/${offer.token}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: offer.id, title: 'By token', token: offer.token });
    const missing = await server.http.get('/api/v1/store/offers/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [Offer] nope' });
  });
});

describe('PUT /api/v1/store/offers/{id}', () => {
  it('answers 200 with a partial update; the token and store never change', async () => {
    const offer = await make.offer({ storeId: owner.store.id, title: 'Before', discount: 10 });
    const res = await server.http.put(`/api/v1/store/offers/${offer.id}`, { discount: 25, token: 'hijack', store_id: 1 }, as(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: offer.id, title: 'Before', discount: 25, token: offer.token, store_id: owner.store.id });
  });

  it('answers 404 for an unknown offer, 403 for another owner’s or a global offer, 422 for a bad range', async () => {
    expect((await server.http.put('/api/v1/store/offers/999999', { discount: 5 }, as(owner.token))).status).toBe(404);
    const theirs = await make.offer({ storeId: (await make.store()).id });
    expect((await server.http.put(`/api/v1/store/offers/${theirs.id}`, { discount: 5 }, as(owner.token))).status).toBe(403);
    const global = await make.offer();
    expect((await server.http.put(`/api/v1/store/offers/${global.id}`, { discount: 5 }, as(owner.token))).status).toBe(403);
    const mine = await make.offer({ storeId: owner.store.id, startsAt: new Date('2030-01-10T00:00:00Z') });
    const backwards = await server.http.put(`/api/v1/store/offers/${mine.id}`, { ends_at: '2030-01-01T00:00:00Z' }, as(owner.token));
    expect(backwards.status).toBe(422);
    expect(Object.keys(backwards.body.errors)).toEqual(['ends_at']);
    const [row] = await sql('select ends_at from offers where id = ?', [mine.id]);
    expect(row.ends_at).toBeNull();
  });
});

describe('DELETE /api/v1/store/offers/{id}', () => {
  it('answers 200 and removes it; 404 for an unknown id', async () => {
    const offer = await make.offer({ storeId: owner.store.id });
    const res = await server.http.delete(`/api/v1/store/offers/${offer.id}`, as(owner.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Offer deleted.' });
    expect(await sql('select * from offers')).toHaveLength(0);
    expect((await server.http.delete(`/api/v1/store/offers/${offer.id}`, as(owner.token))).status).toBe(404);
  });
});

describe('changes reach the customer app at once', () => {
  it('a new offer, a hidden menu and a renamed category show in catalog, nearby and homepage', async () => {
    const menu = await make.menu(owner.store, { name: 'Main' });
    const category = await make.menuCategory(menu, { name: 'Pizzas' });
    await make.product(category);
    const catalog = () => server.http.get(`/api/v1/store/stores/${owner.store.id}/catalog`);
    expect((await catalog()).body.data.menus[0].categories[0].name).toBe('Pizzas');

    await server.http.put(`/api/v1/store/menu-categories/${category.id}`, { name: 'Pies' }, as(owner.token));
    expect((await catalog()).body.data.menus[0].categories[0].name).toBe('Pies');

    const created = await server.http.post('/api/v1/store/offers', { title: 'Tonight', discount: 20 }, as(owner.token));
    expect((await catalog()).body.data.offers.map((o: { id: number }) => o.id)).toEqual([created.body.data.id]);
    const nearby = await server.http.get(`/api/v1/stores/nearby?lat=${owner.store.latitude}&lng=${owner.store.longitude}&has_offer=1`);
    expect(nearby.body.data.stores.map((s: { id: number }) => s.id)).toEqual([owner.store.id]);

    await server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: owner.store.id, is_active: false }, as(owner.token));
    expect((await catalog()).body.data.menus).toEqual([]);
    const home = await server.http.get(`/api/v1/homepage?lat=${owner.store.latitude}&lng=${owner.store.longitude}`);
    expect(home.body.data.products).toEqual([]);
  });
});
