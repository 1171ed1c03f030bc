/**
 * Spec §4.2: GET /api/v1/store/menus and /menu-categories take no parameters and answer 200.
 * Without a filter: a page of the active menus (categories in active menus) of active stores,
 * newest first; a signed-in owner keeps their own view.
 */
import { useOwner } from './helpers/owners';
import { registerCustomer } from './helpers/auth';

const t = useOwner();

const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

/** Two stores' menus: visible ones, an inactive menu, and an active menu of an inactive store. */
async function world() {
  const other = await t.make.store();
  const closedShop = await t.make.store({ isActive: false });
  const m1 = await t.make.menu(t.owner.store, { name: 'Lunch' });
  const inactive = await t.make.menu(t.owner.store, { name: 'Old', isActive: false });
  const m2 = await t.make.menu(other, { name: 'Dinner' });
  const hiddenStore = await t.make.menu(closedShop, { name: 'Gone' });
  const m3 = await t.make.menu(other, { name: 'Brunch' });
  const c1 = await t.make.menuCategory(m1);
  const c2 = await t.make.menuCategory(m2);
  const cInactive = await t.make.menuCategory(inactive);
  const cHiddenStore = await t.make.menuCategory(hiddenStore);
  const c3 = await t.make.menuCategory(m3);
  return { m1, m2, m3, inactive, hiddenStore, c1, c2, c3, cInactive, cHiddenStore };
}

describe('GET /api/v1/store/menus', () => {
  it('answers 200 with no token and no parameters: active menus of active stores, newest first, paginated', async () => {
    const w = await world();
    const res = await t.server.http.get('/api/v1/store/menus');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(ids(res.body.data.menus)).toEqual([w.m3.id, w.m2.id, w.m1.id]);
    expect(res.body.data.menus[0]).toEqual({
      id: w.m3.id,
      store_id: w.m3.store.id,
      name: 'Brunch',
      description: null,
      is_active: true,
      sort_order: 0,
    });
    expect(res.body.data.meta).toEqual({ total: 3, per_page: 15, current_page: 1, last_page: 1 });

    const page2 = await t.server.http.get('/api/v1/store/menus?per_page=2&page=2');
    expect(ids(page2.body.data.menus)).toEqual([w.m1.id]);
    expect(page2.body.data.meta).toEqual({ total: 3, per_page: 2, current_page: 2, last_page: 2 });
    const past = await t.server.http.get('/api/v1/store/menus?per_page=2&page=5');
    expect(past.body.data).toEqual({ menus: [], meta: { total: 3, per_page: 2, current_page: 5, last_page: 2 } });
  });

  it('a signed-in customer who owns no store sees the same list; an owner keeps their own, inactive included', async () => {
    const w = await world();
    const customer = await registerCustomer(t.server);
    const asCustomer = await t.server.http.get('/api/v1/store/menus', { token: customer.token });
    expect(ids(asCustomer.body.data.menus)).toEqual([w.m3.id, w.m2.id, w.m1.id]);
    const asOwner = await t.server.http.get('/api/v1/store/menus', { token: t.owner.token });
    expect(ids(asOwner.body.data.menus)).toEqual([w.m1.id, w.inactive.id]);
    expect(asOwner.body.data.meta.total).toBe(2);
  });

  it('answers 422 naming page or per_page out of range', async () => {
    const res = await t.server.http.get('/api/v1/store/menus?per_page=51&page=0');
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['page', 'per_page']);
  });
});

describe('GET /api/v1/store/menu-categories', () => {
  it('answers 200 with no token and no parameters: categories in active menus of active stores, newest first', async () => {
    const w = await world();
    await t.make.menuCategory(w.m1, { menu: null }); // a category outside any menu is not listed
    const res = await t.server.http.get('/api/v1/store/menu-categories');
    expect(res.status).toBe(200);
    expect(ids(res.body.data.menu_categories)).toEqual([w.c3.id, w.c2.id, w.c1.id]);
    expect(res.body.data.menu_categories[0]).toEqual({
      id: w.c3.id,
      store_id: w.m3.store.id,
      menu_id: w.m3.id,
      name: w.c3.name,
      sort_order: 0,
    });
    expect(res.body.data.meta).toEqual({ total: 3, per_page: 15, current_page: 1, last_page: 1 });
    const one = await t.server.http.get('/api/v1/store/menu-categories?per_page=1&page=3');
    expect(ids(one.body.data.menu_categories)).toEqual([w.c1.id]);
  });

  it('an owner keeps their own view: every category of their stores', async () => {
    const w = await world();
    const res = await t.server.http.get('/api/v1/store/menu-categories', { token: t.owner.token });
    expect(ids(res.body.data.menu_categories).sort()).toEqual([w.c1.id, w.cInactive.id].sort());
  });
});

describe('over GraphQL', () => {
  it('menus and menuCategories answer a page with its meta', async () => {
    const w = await world();
    const res = await t.server.http.graphql(`{
      menus(perPage: 2) { menus { id } meta { total perPage currentPage lastPage } }
      menuCategories { menuCategories { id } meta { total } }
    }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      menus: { menus: [{ id: w.m3.id }, { id: w.m2.id }], meta: { total: 3, perPage: 2, currentPage: 1, lastPage: 2 } },
      menuCategories: { menuCategories: [{ id: w.c3.id }, { id: w.c2.id }, { id: w.c1.id }], meta: { total: 3 } },
    });
  });
});
