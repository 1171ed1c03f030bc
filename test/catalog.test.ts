/** Spec §2.7 and §4.3: catalog, store details, products and store categories over REST and GraphQL. */
import { Factory } from './helpers/factories';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';
import { countStatements } from './helpers/statements';
import { localTimesAt } from '../src/modules/stores/local-time';

let server: TestServer;
let make: Factory;

useTestServer((s, f) => {
  server = s;
  make = f;
});

const idsOf = (list: { id: number }[]) => list.map((x) => x.id);

/** A store with two menus (one inactive), sections, products with options and supplements. */
async function pizzeria() {
  const store = await make.store({ name: 'Pizzeria Napoli', slug: 'pizzeria-napoli', rating: 4.6, deliveryPriceCents: 1250 });
  const menu = await make.menu(store, { name: 'All day', description: 'Served all day', sortOrder: 1 });
  const hidden = await make.menu(store, { name: 'Brunch', isActive: false, sortOrder: 2 });
  const pizzas = await make.menuCategory(menu, { name: 'Pizzas', sortOrder: 1 });
  const drinks = await make.menuCategory(menu, { name: 'Drinks', sortOrder: 2 });
  const hiddenSection = await make.menuCategory(hidden, { name: 'Eggs' });
  const margherita = await make.product(pizzas, { name: 'Margherita', priceCents: 6000, description: 'Tomato, mozzarella', sortOrder: 1 });
  const retired = await make.product(pizzas, { name: 'Retired', isActive: false, sortOrder: 2 });
  const cola = await make.product(drinks, { name: 'Cola', priceCents: 1500 });
  const eggs = await make.product(hiddenSection, { name: 'Eggs Benedict' });
  const size = await make.optionGroup(margherita, {}, [
    ['Medium', 0],
    ['Large', 2500],
  ]);
  const crust = await make.optionGroup(margherita, { name: 'Crust', isRequired: false, minSelect: 0, maxSelect: 1, sortOrder: 1 }, [
    ['Thin', 0],
  ]);
  const cheese = await make.supplement(margherita, 'Extra cheese', 750);
  const offer = await make.offer({ storeId: store.id, title: '20% off pizzas', discount: 20 });
  const global = await make.offer({ title: 'Free delivery week', discount: 100 });
  const other = await make.store();
  await make.offer({ storeId: other.id });
  return { store, menu, pizzas, drinks, margherita, retired, cola, eggs, size, crust, cheese, offer, global };
}

describe('GET /api/v1/store/stores/{id}/catalog', () => {
  it('answers the store, its active menus -> categories -> active products with options and supplements, and active offers', async () => {
    const p = await pizzeria();
    const res = await server.http.get(`/api/v1/store/stores/${p.store.id}/catalog`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { store, menus, offers } = res.body.data;
    expect(store).toEqual({
      id: p.store.id,
      name: 'Pizzeria Napoli',
      slug: 'pizzeria-napoli',
      logo: p.store.logo,
      image: p.store.image,
      address: p.store.address,
      rating: 4.6,
      rating_count: 0,
      delivery_price: 12.5,
      free_delivery: false,
      delivery_time: 30,
      is_open: true,
    });
    expect(menus).toHaveLength(1);
    expect(menus[0]).toMatchObject({ id: p.menu.id, name: 'All day', description: 'Served all day' });
    expect(menus[0].categories.map((c: { name: string }) => c.name)).toEqual(['Pizzas', 'Drinks']);
    const [pizzas, drinks] = menus[0].categories;
    expect(idsOf(pizzas.products)).toEqual([p.margherita.id]);
    expect(idsOf(drinks.products)).toEqual([p.cola.id]);
    expect(pizzas.products[0]).toEqual({
      id: p.margherita.id,
      name: 'Margherita',
      description: 'Tomato, mozzarella',
      price: 60,
      image: p.margherita.image,
      is_featured: false,
      store_id: p.store.id,
      menu_category_id: p.pizzas.id,
      options: [
        {
          id: p.size.group.id,
          name: 'Size',
          is_required: true,
          min_select: 1,
          max_select: 1,
          values: [
            { id: p.size.values[0].id, name: 'Medium', price: 0 },
            { id: p.size.values[1].id, name: 'Large', price: 25 },
          ],
        },
        {
          id: p.crust.group.id,
          name: 'Crust',
          is_required: false,
          min_select: 0,
          max_select: 1,
          values: [{ id: p.crust.values[0].id, name: 'Thin', price: 0 }],
        },
      ],
      supplements: [{ id: p.cheese.id, name: 'Extra cheese', price: 7.5 }],
    });
    expect(idsOf(offers)).toEqual([p.offer.id, p.global.id]);
    expect(offers[0]).toEqual({
      id: p.offer.id,
      title: '20% off pizzas',
      description: null,
      discount: 20,
      token: p.offer.token,
      image: null,
      store_id: p.store.id,
      starts_at: null,
      ends_at: null,
    });
  });

  it('answers 404 naming the model and id for an unknown or inactive store', async () => {
    const res = await server.http.get('/api/v1/store/stores/999999/catalog');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'No query results for model [Store] 999999' });
    const inactive = await make.store({ isActive: false });
    expect((await server.http.get(`/api/v1/store/stores/${inactive.id}/catalog`)).status).toBe(404);
    expect((await server.http.get('/api/v1/store/stores/abc/catalog')).status).toBe(404);
  });

  it('loads in a bounded number of SQL statements whatever the menu size', async () => {
    const statementsFor = async (storeId: number) => {
      const { count, result: res } = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/stores/${storeId}/catalog`));
      expect(res.status).toBe(200);
      return count;
    };
    const small = await make.storeWithProducts(1);
    await make.optionGroup(small.products[0]);
    await make.supplement(small.products[0]);
    const big = await make.store();
    for (let m = 0; m < 3; m++) {
      const menu = await make.menu(big);
      for (let c = 0; c < 3; c++) {
        const category = await make.menuCategory(menu);
        for (let i = 0; i < 4; i++) {
          const product = await make.product(category);
          await make.optionGroup(product);
          await make.supplement(product);
        }
      }
    }
    // The first read of a zone decides "open now" with one statement more, once per zone and process.
    await statementsFor(small.store.id);
    const few = await statementsFor(small.store.id);
    expect(few).toBeLessThanOrEqual(10);
    expect(await statementsFor(big.id)).toBe(few);
  });
});

describe('GET /api/v1/store/stores/{store}', () => {
  it('answers the store details by id or by slug', async () => {
    const category = await make.storeCategory({ name: 'Pizza' });
    const store = await make.store({ name: 'Roma', slug: 'roma', category: category as never, hours: [[1, '11:00', '23:00']] });
    const offer = await make.offer({ storeId: store.id });
    const byId = await server.http.get(`/api/v1/store/stores/${store.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.data).toMatchObject({
      id: store.id,
      name: 'Roma',
      slug: 'roma',
      category: 'Pizza',
      category_id: category.id,
      latitude: store.latitude,
      longitude: store.longitude,
      delivery_radius_km: 5,
      timezone: 'Africa/Casablanca',
      description: null,
      category_detail: { id: category.id, name: 'Pizza', icon: null, image: null, main_category_id: null, sort_order: category.sortOrder },
      opening_hours: [{ day_of_week: 1, opens_at: '11:00:00', closes_at: '23:00:00' }],
    });
    expect(idsOf(byId.body.data.offers)).toEqual([offer.id]);
    const bySlug = await server.http.get('/api/v1/store/stores/roma');
    expect(bySlug.body).toEqual(byId.body);
  });

  it('answers 404 for an unknown id or slug, and for an inactive store', async () => {
    const res = await server.http.get('/api/v1/store/stores/no-such-store');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'No query results for model [Store] no-such-store' });
    const inactive = await make.store({ isActive: false });
    expect((await server.http.get(`/api/v1/store/stores/${inactive.id}`)).status).toBe(404);
  });

  it('repeats at most 64 characters of a key no store could have, never splitting an emoji, and of an unknown path', async () => {
    const long = await server.http.get(`/api/v1/store/stores/${'x'.repeat(5000)}`);
    expect(long.status).toBe(404);
    expect(long.body).toEqual({ message: `No query results for model [Store] ${'x'.repeat(64)}…` });
    const emoji = await server.http.get(`/api/v1/store/stores/${encodeURIComponent('🍕'.repeat(70))}`);
    expect(emoji.status).toBe(404);
    expect(emoji.body).toEqual({ message: `No query results for model [Store] ${'🍕'.repeat(64)}…` });
    // A family is five code points and a flag two: characters as a reader sees them.
    const family = await server.http.get(`/api/v1/store/stores/${encodeURIComponent('👨‍👩‍👧🇲🇦'.repeat(40))}`);
    expect(family.body).toEqual({ message: `No query results for model [Store] ${'👨‍👩‍👧🇲🇦'.repeat(32)}…` });
    const exact = await server.http.get(`/api/v1/store/stores/${'y'.repeat(64)}`);
    expect(exact.body).toEqual({ message: `No query results for model [Store] ${'y'.repeat(64)}` });
    const path = `/api/v1/store/menus/${'z'.repeat(5000)}`;
    const route = await server.http.get(path);
    expect(route.status).toBe(404);
    expect(route.body).toEqual({ message: `The route GET ${path.slice(0, 64)}… could not be found.` });
    const unknown = await server.http.get(`/api/v1/${'w'.repeat(5000)}`);
    expect(unknown.body).toEqual({ message: `The route GET /api/v1/${'w'.repeat(56)}… could not be found.` });
  });
});

describe('GET /api/v1/store/products', () => {
  it('answers the active products of the store, hiding those of inactive menus', async () => {
    const p = await pizzeria();
    const res = await server.http.get(`/api/v1/store/products?store_id=${p.store.id}`);
    expect(res.status).toBe(200);
    expect(idsOf(res.body.data)).toEqual([p.margherita.id, p.cola.id]); // menu, then section, then product order
    expect(res.body.data.find((x: { id: number }) => x.id === p.cola.id)).toEqual({
      id: p.cola.id,
      name: 'Cola',
      description: null,
      price: 15,
      image: p.cola.image,
      is_featured: false,
      store_id: p.store.id,
      menu_category_id: p.drinks.id,
    });
  });

  it('answers 422 without store_id and 404 for an unknown store', async () => {
    const missing = await server.http.get('/api/v1/store/products');
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ store_id: ['The store_id field is required.'] });
    expect((await server.http.get('/api/v1/store/products?store_id=424242')).status).toBe(404);
  });
});

describe('GET /api/v1/store/store-categories', () => {
  it('answers the store categories in display order', async () => {
    const main = await make.mainCategory();
    const second = await make.storeCategory({ name: 'Sushi', sortOrder: 2 });
    const first = await make.storeCategory({ name: 'Burgers', sortOrder: 1, icon: 'burger', mainCategory: main as never });
    const res = await server.http.get('/api/v1/store/store-categories');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: [
        { id: first.id, name: 'Burgers', icon: 'burger', image: null, main_category_id: main.id, sort_order: 1 },
        { id: second.id, name: 'Sushi', icon: null, image: null, main_category_id: null, sort_order: 2 },
      ],
    });
  });
});

describe('GET /api/store/categories', () => {
  it('answers each store category with its count of active stores and its best rated stores', async () => {
    const pizza = await make.storeCategory({ name: 'Pizza', sortOrder: 1 });
    const empty = await make.storeCategory({ name: 'Empty', sortOrder: 2 });
    const good = await make.store({ category: pizza as never, rating: 4.9 });
    const ok = await make.store({ category: pizza as never, rating: 4.0 });
    await make.store({ category: pizza as never, rating: 5, isActive: false });
    const res = await server.http.get('/api/store/categories');
    expect(res.status).toBe(200);
    const [first, second] = res.body.data;
    expect(first).toMatchObject({ id: pizza.id, name: 'Pizza', stores_count: 2 });
    expect(idsOf(first.stores)).toEqual([good.id, ok.id]);
    expect(first.stores[0]).toMatchObject({ id: good.id, category: 'Pizza', is_open: true });
    expect(second).toMatchObject({ id: empty.id, stores_count: 0, stores: [] });
  });
});

describe('opening hours', () => {
  const openAt = async (storeId: number, instant: string) => {
    const em = server.db.orm.em.fork();
    const [row] = await em.execute(`select store_is_open(?, ?::jsonb) as open`, [storeId, await localTimesAt(em, new Date(instant))]);
    return row.open as boolean;
  };

  it('are read in the store time zone, including periods past midnight', async () => {
    // Friday 18:00 – Saturday 02:00 in Tokyo (UTC+9); 2026-11-20 is a Friday.
    const late = await make.store({ timezone: 'Asia/Tokyo', hours: [[5, '18:00', '02:00']] });
    expect(await openAt(late.id, '2026-11-20T17:59:00+09:00')).toBe(false);
    expect(await openAt(late.id, '2026-11-20T18:00:00+09:00')).toBe(true);
    expect(await openAt(late.id, '2026-11-20T23:30:00+09:00')).toBe(true);
    expect(await openAt(late.id, '2026-11-21T01:59:00+09:00')).toBe(true);
    expect(await openAt(late.id, '2026-11-21T02:00:00+09:00')).toBe(false);
    expect(await openAt(late.id, '2026-11-21T01:00:00+09:00')).toBe(true);
    expect(await openAt(late.id, '2026-11-22T01:00:00+09:00')).toBe(false); // Sunday 01:00: Saturday has no period
    expect(await openAt(late.id, '2026-11-20T10:00:00Z')).toBe(true); // 19:00 in Tokyo

    const lunch = await make.store({ timezone: 'UTC', hours: [[5, '12:00', '15:00']] });
    expect(await openAt(lunch.id, '2026-11-20T12:30:00Z')).toBe(true);
    expect(await openAt(lunch.id, '2026-11-20T15:00:00Z')).toBe(false);
    expect(await openAt(lunch.id, '2026-11-27T13:00:00Z')).toBe(true);
    expect(await openAt(lunch.id, '2026-11-21T13:00:00Z')).toBe(false);

    const never = await make.store({ hours: [] });
    expect(await openAt(never.id, '2026-11-20T12:00:00Z')).toBe(false);
  });

  it('give is_open in the API from the current time', async () => {
    const open = await make.store();
    const closed = await make.store({ hours: [] });
    const res = await server.http.graphql(
      `query($a: String!, $b: String!) { a: store(idOrSlug: $a) { isOpen } b: store(idOrSlug: $b) { isOpen } }`,
      {
        a: String(open.id),
        b: closed.slug,
      },
    );
    expect(res.body.data).toEqual({ a: { isOpen: true }, b: { isOpen: false } });
  });
});

describe('GraphQL: catalog, store, storeProducts, storeCategories', () => {
  it('answer the same data as REST', async () => {
    const p = await pizzeria();
    const res = await server.http.graphql(
      `query($id: Int!) {
        catalog(storeId: $id) { store { id deliveryPrice } menus { name categories { name products { name price optionGroups { name values { name price } } supplements { name price } } } } offers { id } }
        storeProducts(storeId: $id) { id }
      }`,
      { id: p.store.id },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.catalog.store).toEqual({ id: p.store.id, deliveryPrice: 12.5 });
    expect(res.body.data.catalog.menus[0].categories[0].products[0]).toEqual({
      name: 'Margherita',
      price: 60,
      optionGroups: [
        {
          name: 'Size',
          values: [
            { name: 'Medium', price: 0 },
            { name: 'Large', price: 25 },
          ],
        },
        { name: 'Crust', values: [{ name: 'Thin', price: 0 }] },
      ],
      supplements: [{ name: 'Extra cheese', price: 7.5 }],
    });
    expect(idsOf(res.body.data.catalog.offers)).toEqual([p.offer.id, p.global.id]);
    expect(idsOf(res.body.data.storeProducts)).toEqual([p.margherita.id, p.cola.id]);

    const missing = await server.http.graphql(`{ catalog(storeId: 123456) { store { id } } }`);
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
