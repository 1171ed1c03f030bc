/** Spec §2.1–2.6 and §4.3: home screen, search, ads and nearby stores over REST and GraphQL. */
import { CASABLANCA, Factory, northOf } from './helpers/factories';
import { useTestServer } from './helpers/setup';
import { startTestServer, TestServer } from './helpers/server';
import { countStatements } from './helpers/statements';

let server: TestServer;
let make: Factory;

useTestServer((s, f) => {
  server = s;
  make = f;
});

// What a computed answer costs (statementsOf): a service on the same database without the
// answer cache, which would answer a repeated request with no statement.
let computing: TestServer;
beforeAll(async () => {
  computing = await startTestServer({ READ_CACHE: 'off' }, server.db);
});
afterAll(() => computing.close());

const nearby = (query: string) => server.http.get(`/api/v1/stores/nearby?${query}`);
const at = (p: { lat: number; lng: number }) => `lat=${p.lat}&lng=${p.lng}`;
const idsOf = (list: { id: number }[]) => list.map((x) => x.id);

describe('GET /api/v1/stores/nearby', () => {
  it('lists the stores whose delivery radius covers the point, nearest first, with the summary fields and meta', async () => {
    const category = await make.storeCategory({ name: 'Pizza' });
    const near = await make.store({ name: 'Near', latitude: northOf(CASABLANCA, 1).lat, category: category as never, deliveryTime: 25 });
    const far = await make.store({ name: 'Far but wide', latitude: northOf(CASABLANCA, 8).lat, deliveryRadiusKm: 10 });
    await make.store({ name: 'Far and narrow', latitude: northOf(CASABLANCA, 8).lat, deliveryRadiusKm: 5 });
    await make.store({ name: 'Closed down', isActive: false });

    const res = await nearby(at(CASABLANCA));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(idsOf(res.body.data.stores)).toEqual([near.id, far.id]);
    expect(res.body.data.meta).toEqual({ total: 2, per_page: 15, current_page: 1, last_page: 1 });
    expect(res.body.data.stores[0]).toEqual({
      id: near.id,
      name: 'Near',
      slug: near.slug,
      logo: near.logo,
      image: near.image,
      address: near.address,
      delivery_time: 25,
      category: 'Pizza',
      category_id: category.id,
      rating: 0,
      rating_count: 0,
      delivery_price: 10,
      free_delivery: false,
      distance_km: 1,
      is_open: true,
    });
  });

  it('gives an empty list for coordinates outside every store area', async () => {
    await make.store();
    const res = await nearby('lat=48.8566&lng=2.3522');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ stores: [], meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 } });
  });

  it('filters by radius, min_rating, free_delivery, is_open, has_offer and category_id', async () => {
    const sushi = await make.storeCategory({ name: 'Sushi' });
    const a = await make.store({ latitude: northOf(CASABLANCA, 3).lat, rating: 4.8, freeDelivery: true, category: sushi as never });
    const b = await make.store({ rating: 3.9, hours: [] }); // never open
    const c = await make.store({ rating: 4.2 });
    await make.offer({ storeId: c.id });
    await make.offer({ storeId: b.id, endsAt: new Date(Date.now() - 60_000) }); // expired

    const ids = async (query: string) => idsOf((await nearby(`${at(CASABLANCA)}&${query}`)).body.data.stores).sort((x, y) => x - y);
    expect(await ids('radius=2')).toEqual([b.id, c.id]);
    expect(await ids('min_rating=4')).toEqual([a.id, c.id]);
    expect(await ids('free_delivery=1')).toEqual([a.id]);
    expect(await ids('free_delivery=0')).toEqual([a.id, b.id, c.id]);
    expect(await ids('is_open=1')).toEqual([a.id, c.id]);
    expect(await ids('has_offer=true')).toEqual([c.id]);
    expect(await ids(`category_id=${sushi.id}`)).toEqual([a.id]);
    expect(await ids(`category_id=${sushi.id}&min_rating=4.9`)).toEqual([]);
  });

  it('sorts by distance, rating, delivery_fee and delivery_time', async () => {
    const first = await make.store({ latitude: northOf(CASABLANCA, 0.5).lat, rating: 3, deliveryPriceCents: 2000, deliveryTime: 50 });
    const second = await make.store({ latitude: northOf(CASABLANCA, 1.5).lat, rating: 5, deliveryPriceCents: 500, deliveryTime: 40 });
    const third = await make.store({ latitude: northOf(CASABLANCA, 2.5).lat, rating: 4, freeDelivery: true, deliveryTime: 20 });
    const order = async (sort: string) => idsOf((await nearby(`${at(CASABLANCA)}&sort=${sort}`)).body.data.stores);
    expect(await order('distance')).toEqual([first.id, second.id, third.id]);
    expect(await order('rating')).toEqual([second.id, third.id, first.id]);
    expect(await order('delivery_fee')).toEqual([third.id, second.id, first.id]);
    expect(await order('delivery_time')).toEqual([third.id, second.id, first.id]);
  });

  it('paginates with page and per_page', async () => {
    const stores = [];
    for (let i = 0; i < 5; i++) stores.push(await make.store({ latitude: northOf(CASABLANCA, i * 0.3).lat }));
    const page2 = await nearby(`${at(CASABLANCA)}&per_page=2&page=2`);
    expect(idsOf(page2.body.data.stores)).toEqual([stores[2].id, stores[3].id]);
    expect(page2.body.data.meta).toEqual({ total: 5, per_page: 2, current_page: 2, last_page: 3 });
    const beyond = await nearby(`${at(CASABLANCA)}&per_page=2&page=9`);
    expect(beyond.body.data).toEqual({ stores: [], meta: { total: 5, per_page: 2, current_page: 9, last_page: 3 } });
  });

  it.each([
    ['lat=95&lng=-7.5', 'lat'],
    ['lng=-7.5', 'lat'],
    ['lat=33.5', 'lng'],
    ['lat=abc&lng=-7.5', 'lat'],
    [`${at(CASABLANCA)}&sort=cheapest`, 'sort'],
    [`${at(CASABLANCA)}&radius=-1`, 'radius'],
    [`${at(CASABLANCA)}&radius=500`, 'radius'],
    [`${at(CASABLANCA)}&min_rating=7`, 'min_rating'],
    [`${at(CASABLANCA)}&free_delivery=maybe`, 'free_delivery'],
    [`${at(CASABLANCA)}&per_page=500`, 'per_page'],
    [`${at(CASABLANCA)}&page=0`, 'page'],
  ])('answers 422 naming the field for %s', async (query, field) => {
    const res = await nearby(query);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
    expect(res.body.errors[field][0]).toEqual(expect.any(String));
  });

  it('uses the GiST index instead of scanning all stores', async () => {
    const em = server.db.orm.em.fork();
    // A spread-out country of stores, so that a sequential scan would be the worse plan.
    await em.execute(`insert into stores (name, slug, address, latitude, longitude, delivery_radius_km, delivery_price_cents, delivery_time, timezone)
      select 'S' || i, 'plan-' || i, 'x', 28 + (i % 100) * 0.08, -12 + (i / 100) * 0.08, 5, 0, 30, 'Africa/Casablanca'
      from generate_series(1, 10000) i`);
    await em.execute('analyze stores');
    const { storeConditions } = await import('../src/modules/stores/store-query');
    const { where, params } = storeConditions({ point: CASABLANCA });
    const plan = await em.execute<{ 'QUERY PLAN': string }[]>(`explain select s.id from stores s where ${where}`, params);
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toMatch(/stores_earth_index/);
    expect(text).not.toMatch(/Seq Scan on stores/);
  });
});

describe('GET /api/v1/homepage', () => {
  async function city() {
    const main = await make.mainCategory({ name: 'Food', icon: 'food', sortOrder: 1 });
    const pizza = await make.storeCategory({ name: 'Pizza', sortOrder: 1 });
    const here = await make.storeWithProducts(3, { rating: 4.9, ratingCount: 10, orderCount: 5, category: pizza as never });
    const popular = await make.storeWithProducts(1, { latitude: northOf(CASABLANCA, 1).lat, rating: 4.1, orderCount: 900 });
    const elsewhere = await make.storeWithProducts(1, { latitude: northOf(CASABLANCA, 30).lat, rating: 5, orderCount: 10000 });
    const em = server.db.orm.em.fork();
    await em.execute(`update products set order_count = ? where id = ?`, [50, here.products[1].id]);
    await em.execute(`update products set order_count = ?, is_featured = true where id = ?`, [70, popular.products[0].id]);
    await em.execute(`update products set order_count = 999, is_featured = true where id = ?`, [elsewhere.products[0].id]);
    await em.execute(`update products set is_active = false where id = ?`, [here.products[2].id]);
    const banner = await make.offer({ title: 'Ramadan deals', image: 'https://img.test/banner.png' });
    await make.offer({ title: 'Store only', storeId: here.store.id });
    await make.offer({ title: 'Over', endsAt: new Date(Date.now() - 1000) });
    return { main, pizza, here, popular, elsewhere, banner };
  }

  it('answers the nine blocks, each an array, holding only stores that deliver to the point', async () => {
    const { main, pizza, here, popular, elsewhere, banner } = await city();
    const res = await server.http.get(`/api/v1/homepage?${at(CASABLANCA)}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual([
      'categories',
      'featured_products',
      'main_categories',
      'offers',
      'popular_near_you',
      'products',
      'stores',
      'top_rated_stores',
      'trending_products',
    ]);
    expect(data.main_categories).toEqual([{ id: main.id, name: 'Food', icon: 'food', sort_order: 1, image: main.image }]);
    expect(data.categories).toEqual([{ id: pizza.id, name: 'Pizza', icon: null, image: null, main_category_id: null, sort_order: 1 }]);
    expect(idsOf(data.offers)).toEqual([banner.id]);
    expect(data.offers[0]).toMatchObject({ title: 'Ramadan deals', image: 'https://img.test/banner.png', store_id: null });
    expect(idsOf(data.top_rated_stores)).toEqual([here.store.id, popular.store.id]);
    expect(idsOf(data.popular_near_you)).toEqual([popular.store.id, here.store.id]);
    expect(idsOf(data.stores)).toEqual([here.store.id, popular.store.id]);
    expect(idsOf(data.trending_products)).toEqual([popular.products[0].id, here.products[1].id, here.products[0].id]);
    expect(idsOf(data.featured_products)).toEqual([popular.products[0].id]);
    expect(data.products).toHaveLength(3);
    expect(data.products.map((p: { store_id: number }) => p.store_id)).not.toContain(elsewhere.store.id);
    expect(data.trending_products[0]).toEqual({
      id: popular.products[0].id,
      name: popular.products[0].name,
      description: null,
      price: 45,
      image: popular.products[0].image,
      is_featured: true,
      store_id: popular.store.id,
      menu_category_id: popular.category.id,
    });
  });

  it('without coordinates answers city-wide blocks', async () => {
    const { here, popular, elsewhere } = await city();
    const res = await server.http.get('/api/v1/homepage');
    expect(res.status).toBe(200);
    expect(idsOf(res.body.data.popular_near_you)).toEqual([elsewhere.store.id, popular.store.id, here.store.id]);
    expect(res.body.data.trending_products[0].id).toBe(elsewhere.products[0].id);
  });

  it('answers 422 for coordinates out of range', async () => {
    const res = await server.http.get('/api/v1/homepage?lat=91&lng=0');
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['lat']);
  });

  /**
   * The home screen is one statement (blocks, cards, "open now", categories, offers:
   * src/modules/discovery/home-screen.ts), whichever path answers the blocks; two while the
   * process has not met a shown store's time zone yet ("open now" of those from the loader).
   */
  const HOME_MAX_STATEMENTS = 2;

  it('loads in a bounded number of SQL statements, whatever the number of stores', async () => {
    await city();
    const home = `/api/v1/homepage?${at(CASABLANCA)}`;
    expect(await statementsOf(home)).toBeLessThanOrEqual(HOME_MAX_STATEMENTS);
    expect(await statementsOf(home)).toBe(1);
    for (let i = 0; i < 12; i++) await make.storeWithProducts(3, { latitude: northOf(CASABLANCA, i * 0.1).lat });
    expect(await statementsOf(home)).toBe(1);
    // Where no store delivers (the walks come back short, the full ranking answers): one too.
    expect(await statementsOf('/api/v1/homepage?lat=34.2&lng=-8.6')).toBe(1);
    expect(await statementsOf('/api/v1/homepage')).toBe(1);
  });
});

/** The SQL statements one GET of `path` sends (the ORM's knex emits one `query` event each); it must answer 200. */
async function statementsOf(path: string): Promise<number> {
  const { count, result: res } = await countStatements(server.db.orm, () => computing.http.get(path));
  expect(res.status).toBe(200);
  return count;
}

describe('GET /api/v1/global/search', () => {
  it('finds stores and products by name, accent- and typo-tolerant, best matches first', async () => {
    const patisserie = await make.store({ name: 'Pâtisserie Amandine', rating: 4.5 });
    const pizzeria = await make.store({ name: 'Pizzeria Napoli' });
    const { products } = await make.storeWithProducts(1, {}, { name: 'Crème brûlée' });
    const { products: pizzas } = await make.storeWithProducts(1, { name: 'Corner' }, { name: 'Pizza Margherita' });
    await make.storeWithProducts(1, { name: 'Pizza Hidden', isActive: false }, { name: 'Pizza Hidden Special' });

    const accents = await server.http.get('/api/v1/global/search?q=patisserie');
    expect(accents.status).toBe(200);
    expect(accents.body.data.stores).toEqual([
      { id: patisserie.id, name: 'Pâtisserie Amandine', logo: patisserie.logo, slug: patisserie.slug, rating: 4.5 },
    ]);

    const creme = await server.http.get('/api/v1/global/search?q=CREME');
    expect(creme.body.data.products).toEqual([
      { id: products[0].id, name: 'Crème brûlée', price: 45, store_id: products[0].store.id, image: products[0].image },
    ]);

    const typo = await server.http.get('/api/v1/global/search?q=piza');
    expect(idsOf(typo.body.data.stores)).toEqual([pizzeria.id]);
    expect(idsOf(typo.body.data.products)).toEqual([pizzas[0].id]);
  });

  it('treats % and _ literally', async () => {
    await make.store({ name: 'Anything' });
    const res = await server.http.get('/api/v1/global/search?q=%25');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ stores: [], products: [] });
  });

  it('reads stores, products and their rows in one SQL statement', async () => {
    await make.storeWithProducts(2, { name: 'Pizza Uno' }, { name: 'Pizza Margherita' });
    expect(await statementsOf('/api/v1/global/search?q=pizza')).toBe(1);
  });

  it.each([[''], ['?q='], ['?q=%20%20']])('answers 422 when q is missing or blank (%s)', async (query) => {
    const res = await server.http.get(`/api/v1/global/search${query}`);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['q']);
  });
});

describe('GET /api/v1/global/ads', () => {
  it('answers the active ads in sort order with the §2.3 fields', async () => {
    const { store, products } = await make.storeWithProducts(1);
    const second = await make.ad({ title: 'Second', sortOrder: 2, redirectType: 'product_screen', product: products[0] as never });
    const first = await make.ad({ title: 'First', sortOrder: 1, redirectType: 'store_screen', store: store as never });
    await make.ad({ title: 'Off', isActive: false });
    await make.ad({ title: 'Later', startsAt: new Date(Date.now() + 3_600_000) });
    await make.ad({ title: 'Ended', endsAt: new Date(Date.now() - 1000) });
    const res = await server.http.get('/api/v1/global/ads');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: [
        {
          id: first.id,
          title: 'First',
          type: 'image',
          image: first.image,
          redirect_type: 'store_screen',
          store_id: store.id,
          product_id: null,
          sort_order: 1,
        },
        {
          id: second.id,
          title: 'Second',
          type: 'image',
          image: second.image,
          redirect_type: 'product_screen',
          store_id: null,
          product_id: products[0].id,
          sort_order: 2,
        },
      ],
    });
  });
});

describe('GraphQL: homepage, nearbyStores, search, ads', () => {
  it('answer the same data as REST', async () => {
    const store = await make.store({ name: 'Pizzeria Roma', latitude: northOf(CASABLANCA, 1).lat });
    await make.ad({ title: 'Banner' });
    const res = await server.http.graphql(
      `query($lat: Float!, $lng: Float!) {
        nearbyStores(lat: $lat, lng: $lng, sort: "rating") { stores { id name distanceKm isOpen categoryName } meta { total lastPage } }
        homepage(lat: $lat, lng: $lng) { stores { id isOpen categoryName distanceKm openingHours { dayOfWeek } } }
        search(q: "roma") { stores { id isOpen categoryName distanceKm } products { id } }
        ads { title }
      }`,
      CASABLANCA,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({
      nearbyStores: {
        stores: [{ id: store.id, name: 'Pizzeria Roma', distanceKm: 1, isOpen: true, categoryName: null }],
        meta: { total: 1, lastPage: 1 },
      },
      homepage: { stores: [{ id: store.id, isOpen: true, categoryName: null, distanceKm: 1, openingHours: expect.any(Array) }] },
      search: { stores: [{ id: store.id, isOpen: true, categoryName: null, distanceKm: null }], products: [] },
      ads: [{ title: 'Banner' }],
    });
  });

  it('reports validation errors with extensions.fields', async () => {
    const res = await server.http.graphql(`{ nearbyStores(lat: 95, lng: 0) { meta { total } } }`);
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION');
    expect(Object.keys(res.body.errors[0].extensions.fields)).toEqual(['lat']);
  });
});
