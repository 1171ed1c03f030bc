/** Spec §4.2 store management (all rows but accept/reject), over REST, one describe per row. */
import { makeOwner, useOwner } from './helpers/owners';
import { registerCustomer } from './helpers/auth';

const t = useOwner();

const as = (token?: string) => ({ token });
const sql = (query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute(query, params);

describe('POST /api/v1/store/menus', () => {
  it('answers 201 with the new menu', async () => {
    const res = await t.server.http.post(
      '/api/v1/store/menus',
      { store_id: t.owner.store.id, name: 'Lunch', description: 'Noon to 3', is_active: false },
      as(t.owner.token),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Menu created.',
      data: {
        id: expect.any(Number),
        store_id: t.owner.store.id,
        name: 'Lunch',
        description: 'Noon to 3',
        is_active: false,
        sort_order: 0,
      },
    });
  });

  it('answers 422 when store_id or name is missing', async () => {
    const res = await t.server.http.post('/api/v1/store/menus', { description: 'x' }, as(t.owner.token));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ store_id: ['The store_id field is required.'], name: ['The name field is required.'] });
  });

  it('answers 401 without a token, 403 for a store of someone else, 404 for an unknown store', async () => {
    expect((await t.server.http.post('/api/v1/store/menus', { store_id: t.owner.store.id, name: 'X' })).status).toBe(401);
    const other = await t.make.store();
    const forbidden = await t.server.http.post('/api/v1/store/menus', { store_id: other.id, name: 'X' }, as(t.owner.token));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: 'You do not own this store.' });
    const missing = await t.server.http.post('/api/v1/store/menus', { store_id: 999999, name: 'X' }, as(t.owner.token));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [Store] 999999' });
    expect(await sql('select * from menus')).toHaveLength(0);
  });
});

describe('GET /api/v1/store/menus', () => {
  it("answers a store's active menus to anyone, and all of them to its owner", async () => {
    const active = await t.make.menu(t.owner.store, { name: 'Active', sortOrder: 1 });
    const hidden = await t.make.menu(t.owner.store, { name: 'Hidden', isActive: false, sortOrder: 2 });
    const anonymous = await t.server.http.get(`/api/v1/store/menus?store_id=${t.owner.store.id}`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data.menus.map((m: { id: number }) => m.id)).toEqual([active.id]);
    const mine = await t.server.http.get(`/api/v1/store/menus?store_id=${t.owner.store.id}`, as(t.owner.token));
    expect(mine.body.data.menus.map((m: { id: number }) => m.id)).toEqual([active.id, hidden.id]);
  });

  it("answers the caller's own menus without store_id", async () => {
    const menu = await t.make.menu(t.owner.store);
    await t.make.menu(await t.make.store());
    const mine = await t.server.http.get('/api/v1/store/menus', as(t.owner.token));
    expect(mine.status).toBe(200);
    expect(mine.body.data.menus.map((m: { id: number }) => m.id)).toEqual([menu.id]);
  });
});

describe('GET /api/v1/store/menus/{id}', () => {
  it('answers 200 with the menu and its categories', async () => {
    const menu = await t.make.menu(t.owner.store, { name: 'Dinner' });
    const category = await t.make.menuCategory(menu, { name: 'Mains' });
    const res = await t.server.http.get(`/api/v1/store/menus/${menu.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: menu.id,
      store_id: t.owner.store.id,
      name: 'Dinner',
      description: null,
      is_active: true,
      sort_order: 0,
      categories: [{ id: category.id, store_id: t.owner.store.id, menu_id: menu.id, name: 'Mains', sort_order: 0 }],
    });
  });

  it('answers 404 for an unknown menu, and for an inactive one unless the caller owns it', async () => {
    const missing = await t.server.http.get('/api/v1/store/menus/424242');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [Menu] 424242' });
    const hidden = await t.make.menu(t.owner.store, { isActive: false });
    expect((await t.server.http.get(`/api/v1/store/menus/${hidden.id}`)).status).toBe(404);
    expect((await t.server.http.get(`/api/v1/store/menus/${hidden.id}`, as(t.owner.token))).status).toBe(200);
  });
});

describe('PUT /api/v1/store/menus/{id}', () => {
  it('answers 200 and changes only the fields given', async () => {
    const menu = await t.make.menu(t.owner.store, { name: 'Old', description: 'Keep me' });
    const res = await t.server.http.put(
      `/api/v1/store/menus/${menu.id}`,
      { store_id: t.owner.store.id, is_active: false },
      as(t.owner.token),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Menu updated.',
      data: { id: menu.id, store_id: t.owner.store.id, name: 'Old', description: 'Keep me', is_active: false, sort_order: 0 },
    });
    const renamed = await t.server.http.put(
      `/api/v1/store/menus/${menu.id}`,
      { store_id: t.owner.store.id, name: 'New', description: null },
      as(t.owner.token),
    );
    expect(renamed.body.data).toMatchObject({ name: 'New', description: null, is_active: false });
  });

  it('answers 422 when store_id is missing, is another store, or name is blank or null', async () => {
    const menu = await t.make.menu(t.owner.store, { name: 'Same' });
    const missing = await t.server.http.put(`/api/v1/store/menus/${menu.id}`, { name: 'X' }, as(t.owner.token));
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ store_id: ['The store_id field is required.'] });
    const mine = await t.make.store();
    await sql('update stores set owner_id = ? where id = ?', [t.owner.user.id, mine.id]);
    const moved = await t.server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: mine.id }, as(t.owner.token));
    expect(moved.status).toBe(422);
    expect(Object.keys(moved.body.errors)).toEqual(['store_id']);
    const blank = await t.server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: t.owner.store.id, name: '  ' }, as(t.owner.token));
    expect(blank.status).toBe(422);
    expect(Object.keys(blank.body.errors)).toEqual(['name']);
    const nulled = await t.server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: t.owner.store.id, name: null }, as(t.owner.token));
    expect(nulled.status).toBe(422);
    expect(await sql('select name, store_id from menus')).toEqual([{ name: 'Same', store_id: t.owner.store.id }]);
  });

  it('answers 403 when the caller is not the owner, 404 for an unknown menu', async () => {
    const other = await makeOwner(t.server, t.make);
    const menu = await t.make.menu(other.store);
    const res = await t.server.http.put(
      `/api/v1/store/menus/${menu.id}`,
      { store_id: other.store.id, name: 'Mine now' },
      as(t.owner.token),
    );
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'You do not own this store.' });
    expect((await t.server.http.put('/api/v1/store/menus/999999', { store_id: t.owner.store.id }, as(t.owner.token))).status).toBe(404);
  });
});

describe('DELETE /api/v1/store/menus/{id}', () => {
  it('answers 200, removing the menu and its empty categories', async () => {
    const menu = await t.make.menu(t.owner.store);
    await t.make.menuCategory(menu);
    const res = await t.server.http.delete(`/api/v1/store/menus/${menu.id}`, as(t.owner.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Menu deleted.' });
    expect(await sql('select * from menus')).toHaveLength(0);
    expect(await sql('select * from menu_categories')).toHaveLength(0);
  });

  it('answers 409 while the menu holds products, and 404 for an unknown menu', async () => {
    const menu = await t.make.menu(t.owner.store);
    await t.make.product(await t.make.menuCategory(menu));
    const res = await t.server.http.delete(`/api/v1/store/menus/${menu.id}`, as(t.owner.token));
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/holds 1 product/);
    expect(await sql('select * from menus')).toHaveLength(1);
    expect((await t.server.http.delete('/api/v1/store/menus/999999', as(t.owner.token))).status).toBe(404);
  });
});

describe('POST /api/v1/store/menu-categories', () => {
  it('answers 201 with a category placed in a menu (its store is the menu’s)', async () => {
    const menu = await t.make.menu(t.owner.store);
    const res = await t.server.http.post('/api/v1/store/menu-categories', { name: 'Starters', menu_id: menu.id }, as(t.owner.token));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Category created.',
      data: { id: expect.any(Number), store_id: t.owner.store.id, menu_id: menu.id, name: 'Starters', sort_order: 0 },
    });
  });

  it('answers 422 without name, or without menu_id and store_id', async () => {
    const noName = await t.server.http.post('/api/v1/store/menu-categories', { menu_id: 1 }, as(t.owner.token));
    expect(noName.status).toBe(422);
    expect(noName.body.errors).toEqual({ name: ['The name field is required.'] });
    const nowhere = await t.server.http.post('/api/v1/store/menu-categories', { name: 'Loose' }, as(t.owner.token));
    expect(nowhere.status).toBe(422);
    expect(Object.keys(nowhere.body.errors)).toEqual(['store_id']);
    const loose = await t.server.http.post(
      '/api/v1/store/menu-categories',
      { name: 'Loose', store_id: t.owner.store.id },
      as(t.owner.token),
    );
    expect(loose.status).toBe(201);
    expect(loose.body.data.menu_id).toBeNull();
  });

  it('answers 403 for a menu of another store', async () => {
    const menu = await t.make.menu(await t.make.store());
    const res = await t.server.http.post('/api/v1/store/menu-categories', { name: 'X', menu_id: menu.id }, as(t.owner.token));
    expect(res.status).toBe(403);
    expect(await sql('select * from menu_categories')).toHaveLength(0);
  });
});

describe('GET /api/v1/store/menu-categories', () => {
  it("answers a menu's or a store's categories", async () => {
    const menu = await t.make.menu(t.owner.store);
    const hiddenMenu = await t.make.menu(t.owner.store, { isActive: false });
    const a = await t.make.menuCategory(menu, { sortOrder: 2 });
    const b = await t.make.menuCategory(menu, { sortOrder: 1 });
    const hidden = await t.make.menuCategory(hiddenMenu);
    const byMenu = await t.server.http.get(`/api/v1/store/menu-categories?menu_id=${menu.id}`);
    expect(byMenu.status).toBe(200);
    expect(byMenu.body.data.menu_categories.map((c: { id: number }) => c.id)).toEqual([b.id, a.id]);
    const byStore = await t.server.http.get(`/api/v1/store/menu-categories?store_id=${t.owner.store.id}`);
    expect(byStore.body.data.menu_categories.map((c: { id: number }) => c.id)).toEqual([b.id, a.id]);
    const asOwner = await t.server.http.get(`/api/v1/store/menu-categories?store_id=${t.owner.store.id}`, as(t.owner.token));
    expect(asOwner.body.data.menu_categories.map((c: { id: number }) => c.id).sort()).toEqual([a.id, b.id, hidden.id].sort());
  });
});

describe('GET /api/v1/store/menu-categories/{id}', () => {
  it('answers 200, or 404 naming the model', async () => {
    const category = await t.make.menuCategory(await t.make.menu(t.owner.store), { name: 'Sides' });
    const res = await t.server.http.get(`/api/v1/store/menu-categories/${category.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: category.id, store_id: t.owner.store.id, menu_id: category.menu.id, name: 'Sides', sort_order: 0 });
    const missing = await t.server.http.get('/api/v1/store/menu-categories/777777');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [MenuCategory] 777777' });
  });
});

describe('PUT /api/v1/store/menu-categories/{id}', () => {
  it('answers 200, renaming and moving to another menu of the same store', async () => {
    const first = await t.make.menu(t.owner.store);
    const second = await t.make.menu(t.owner.store);
    const category = await t.make.menuCategory(first, { name: 'Old' });
    const res = await t.server.http.put(
      `/api/v1/store/menu-categories/${category.id}`,
      { name: 'New', menu_id: second.id },
      as(t.owner.token),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: category.id, name: 'New', menu_id: second.id, store_id: t.owner.store.id });
  });

  it('answers 404 for an unknown category, 403 for another owner’s, 422 for a menu of another store', async () => {
    expect((await t.server.http.put('/api/v1/store/menu-categories/999999', { name: 'X' }, as(t.owner.token))).status).toBe(404);
    const theirs = await t.make.menuCategory(await t.make.menu(await t.make.store()));
    expect((await t.server.http.put(`/api/v1/store/menu-categories/${theirs.id}`, { name: 'X' }, as(t.owner.token))).status).toBe(403);
    const mine = await t.make.menuCategory(await t.make.menu(t.owner.store));
    const elsewhere = await t.make.menu(await t.make.store());
    const res = await t.server.http.put(`/api/v1/store/menu-categories/${mine.id}`, { menu_id: elsewhere.id }, as(t.owner.token));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['menu_id']);
  });
});

describe('DELETE /api/v1/store/menu-categories/{id}', () => {
  it('answers 200 for an empty category, 409 while it holds products, 404 for an unknown one', async () => {
    const menu = await t.make.menu(t.owner.store);
    const empty = await t.make.menuCategory(menu);
    const full = await t.make.menuCategory(menu);
    await t.make.product(full);
    const ok = await t.server.http.delete(`/api/v1/store/menu-categories/${empty.id}`, as(t.owner.token));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true, message: 'Category deleted.' });
    expect((await t.server.http.delete(`/api/v1/store/menu-categories/${full.id}`, as(t.owner.token))).status).toBe(409);
    expect((await t.server.http.delete('/api/v1/store/menu-categories/999999', as(t.owner.token))).status).toBe(404);
    expect(await sql('select id from menu_categories')).toEqual([{ id: full.id }]);
  });
});

describe('GET /api/v1/store/categories', () => {
  it("answers the caller's categories, of all their stores or of one", async () => {
    const mine = await t.make.menuCategory(await t.make.menu(t.owner.store));
    await t.make.menuCategory(await t.make.menu(await t.make.store()));
    const res = await t.server.http.get('/api/v1/store/categories', as(t.owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: number }) => c.id)).toEqual([mine.id]);
    const one = await t.server.http.get(`/api/v1/store/categories?store_id=${t.owner.store.id}`, as(t.owner.token));
    expect(one.body.data.map((c: { id: number }) => c.id)).toEqual([mine.id]);
  });

  it('answers 401 without a token and 403 for a store of someone else', async () => {
    expect((await t.server.http.get('/api/v1/store/categories')).status).toBe(401);
    const other = await t.make.store();
    expect((await t.server.http.get(`/api/v1/store/categories?store_id=${other.id}`, as(t.owner.token))).status).toBe(403);
  });
});

describe('POST /api/v1/store/categories', () => {
  it('answers 201 with a category of the store', async () => {
    const res = await t.server.http.post('/api/v1/store/categories', { store_id: t.owner.store.id, name: 'Drinks' }, as(t.owner.token));
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: expect.any(Number), store_id: t.owner.store.id, menu_id: null, name: 'Drinks', sort_order: 0 });
  });

  it('answers 422 without store_id or name, 401 without a token, 403 for another store', async () => {
    const invalid = await t.server.http.post('/api/v1/store/categories', {}, as(t.owner.token));
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors).sort()).toEqual(['name', 'store_id']);
    expect((await t.server.http.post('/api/v1/store/categories', { store_id: t.owner.store.id, name: 'X' })).status).toBe(401);
    const other = await t.make.store();
    expect((await t.server.http.post('/api/v1/store/categories', { store_id: other.id, name: 'X' }, as(t.owner.token))).status).toBe(403);
  });
});

describe('GET /api/v1/store/categories/{id}', () => {
  it('answers 200 to the owner, 403 to anyone else, 404 for an unknown id', async () => {
    const category = await t.make.menuCategory(await t.make.menu(t.owner.store), { name: 'Mine' });
    const res = await t.server.http.get(`/api/v1/store/categories/${category.id}`, as(t.owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: category.id, name: 'Mine' });
    const stranger = await registerCustomer(t.server);
    expect((await t.server.http.get(`/api/v1/store/categories/${category.id}`, as(stranger.token))).status).toBe(403);
    const missing = await t.server.http.get('/api/v1/store/categories/999999', as(t.owner.token));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [MenuCategory] 999999' });
  });
});

describe('PUT /api/v1/store/categories/{id}', () => {
  it('answers 200 with the change, 403 for a category of another owner', async () => {
    const category = await t.make.menuCategory(await t.make.menu(t.owner.store));
    const res = await t.server.http.put(`/api/v1/store/categories/${category.id}`, { name: 'Renamed', sort_order: 3 }, as(t.owner.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Renamed', sort_order: 3 });
    const theirs = await t.make.menuCategory(await t.make.menu(await t.make.store()));
    expect((await t.server.http.put(`/api/v1/store/categories/${theirs.id}`, { name: 'X' }, as(t.owner.token))).status).toBe(403);
  });
});

describe('DELETE /api/v1/store/categories/{id}', () => {
  it('answers 200 and removes it', async () => {
    const category = await t.make.menuCategory(await t.make.menu(t.owner.store));
    const res = await t.server.http.delete(`/api/v1/store/categories/${category.id}`, as(t.owner.token));
    expect(res.status).toBe(200);
    expect(await sql('select * from menu_categories')).toHaveLength(0);
  });
});

describe('GET /api/v1/store/offers', () => {
  it('lists active offers only, filtered by store_id', async () => {
    const active = await t.make.offer({ storeId: t.owner.store.id, title: 'Now' });
    await t.make.offer({ storeId: t.owner.store.id, endsAt: new Date(Date.now() - 1000) });
    await t.make.offer({ storeId: t.owner.store.id, startsAt: new Date(Date.now() + 3_600_000) });
    const global = await t.make.offer({ title: 'Everyone' });
    const res = await t.server.http.get(`/api/v1/store/offers?store_id=${t.owner.store.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual([active.id]);
    const all = await t.server.http.get('/api/v1/store/offers');
    expect(all.body.data.map((o: { id: number }) => o.id)).toEqual([global.id, active.id]);
  });
});

describe('POST /api/v1/store/offers', () => {
  it('answers 201 with a generated unique token', async () => {
    const starts = new Date(Date.now() + 60_000).toISOString();
    const ends = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const res = await t.server.http.post(
      '/api/v1/store/offers',
      { title: 'Summer 15%', discount: 15, description: 'All pizzas', starts_at: starts, ends_at: ends },
      as(t.owner.token),
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
        store_id: t.owner.store.id,
        starts_at: starts,
        ends_at: ends,
      },
    });
    const second = await t.server.http.post('/api/v1/store/offers', { title: 'Another', discount: 5 }, as(t.owner.token));
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
    const res = await t.server.http.post('/api/v1/store/offers', body, as(t.owner.token));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(fields);
    expect(await sql('select * from offers')).toHaveLength(0);
  });

  it('needs store_id from an owner of several stores, and refuses callers who own none', async () => {
    const second = await t.make.store();
    await sql('update stores set owner_id = ? where id = ?', [t.owner.user.id, second.id]);
    const ambiguous = await t.server.http.post('/api/v1/store/offers', { title: 'X', discount: 10 }, as(t.owner.token));
    expect(ambiguous.status).toBe(422);
    expect(Object.keys(ambiguous.body.errors)).toEqual(['store_id']);
    const chosen = await t.server.http.post('/api/v1/store/offers', { title: 'X', discount: 10, store_id: second.id }, as(t.owner.token));
    expect(chosen.status).toBe(201);
    expect(chosen.body.data.store_id).toBe(second.id);
    const customer = await registerCustomer(t.server);
    expect((await t.server.http.post('/api/v1/store/offers', { title: 'X', discount: 10 }, as(customer.token))).status).toBe(403);
  });
});

describe('GET /api/v1/store/offers/{token}', () => {
  it('answers 200 with the offer, or 404', async () => {
    const offer = await t.make.offer({ storeId: t.owner.store.id, title: 'By token' });
    const res = await t.server.http.get(`/api/v1/store/offers/${offer.token}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: offer.id, title: 'By token', token: offer.token });
    const missing = await t.server.http.get('/api/v1/store/offers/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'No query results for model [Offer] nope' });
  });
});

describe('PUT /api/v1/store/offers/{id}', () => {
  it('answers 200 with a partial update; the token and store never change', async () => {
    const offer = await t.make.offer({ storeId: t.owner.store.id, title: 'Before', discount: 10 });
    const res = await t.server.http.put(
      `/api/v1/store/offers/${offer.id}`,
      { discount: 25, token: 'hijack', store_id: 1 },
      as(t.owner.token),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: offer.id, title: 'Before', discount: 25, token: offer.token, store_id: t.owner.store.id });
  });

  it('answers 404 for an unknown offer, 403 for another owner’s or a global offer, 422 for a bad range', async () => {
    expect((await t.server.http.put('/api/v1/store/offers/999999', { discount: 5 }, as(t.owner.token))).status).toBe(404);
    const theirs = await t.make.offer({ storeId: (await t.make.store()).id });
    expect((await t.server.http.put(`/api/v1/store/offers/${theirs.id}`, { discount: 5 }, as(t.owner.token))).status).toBe(403);
    const global = await t.make.offer();
    expect((await t.server.http.put(`/api/v1/store/offers/${global.id}`, { discount: 5 }, as(t.owner.token))).status).toBe(403);
    const mine = await t.make.offer({ storeId: t.owner.store.id, startsAt: new Date('2030-01-10T00:00:00Z') });
    const backwards = await t.server.http.put(`/api/v1/store/offers/${mine.id}`, { ends_at: '2030-01-01T00:00:00Z' }, as(t.owner.token));
    expect(backwards.status).toBe(422);
    expect(Object.keys(backwards.body.errors)).toEqual(['ends_at']);
    const [row] = await sql('select ends_at from offers where id = ?', [mine.id]);
    expect(row.ends_at).toBeNull();
  });
});

describe('DELETE /api/v1/store/offers/{id}', () => {
  it('answers 200 and removes it; 404 for an unknown id', async () => {
    const offer = await t.make.offer({ storeId: t.owner.store.id });
    const res = await t.server.http.delete(`/api/v1/store/offers/${offer.id}`, as(t.owner.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Offer deleted.' });
    expect(await sql('select * from offers')).toHaveLength(0);
    expect((await t.server.http.delete(`/api/v1/store/offers/${offer.id}`, as(t.owner.token))).status).toBe(404);
  });
});

describe('changes reach the customer app at once', () => {
  it('a new offer, a hidden menu and a renamed category show in catalog, nearby and homepage', async () => {
    const menu = await t.make.menu(t.owner.store, { name: 'Main' });
    const category = await t.make.menuCategory(menu, { name: 'Pizzas' });
    await t.make.product(category);
    const catalog = () => t.server.http.get(`/api/v1/store/stores/${t.owner.store.id}/catalog`);
    expect((await catalog()).body.data.menus[0].categories[0].name).toBe('Pizzas');

    await t.server.http.put(`/api/v1/store/menu-categories/${category.id}`, { name: 'Pies' }, as(t.owner.token));
    expect((await catalog()).body.data.menus[0].categories[0].name).toBe('Pies');

    const created = await t.server.http.post('/api/v1/store/offers', { title: 'Tonight', discount: 20 }, as(t.owner.token));
    expect((await catalog()).body.data.offers.map((o: { id: number }) => o.id)).toEqual([created.body.data.id]);
    const nearby = await t.server.http.get(
      `/api/v1/stores/nearby?lat=${t.owner.store.latitude}&lng=${t.owner.store.longitude}&has_offer=1`,
    );
    expect(nearby.body.data.stores.map((s: { id: number }) => s.id)).toEqual([t.owner.store.id]);

    await t.server.http.put(`/api/v1/store/menus/${menu.id}`, { store_id: t.owner.store.id, is_active: false }, as(t.owner.token));
    expect((await catalog()).body.data.menus).toEqual([]);
    const home = await t.server.http.get(`/api/v1/homepage?lat=${t.owner.store.latitude}&lng=${t.owner.store.longitude}`);
    expect(home.body.data.products).toEqual([]);
  });
});
