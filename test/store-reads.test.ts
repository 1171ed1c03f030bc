/**
 * Store details, catalog and store products answer in ONE SQL statement each (issue 9: every
 * round trip costs the service a fixed slice of CPU; docs/decisions.md "City scale: one
 * statement per store read"), and what that statement reads for the nested fields (category,
 * hours, active offers, "open now", the catalog tree) is exactly what those fields' own
 * loaders read when nothing was read for them: each answer is compared, byte for byte, with
 * the same fields reached through a query that primes nothing (a category's top stores, the
 * menus list), at an open and a closed instant, beside expired and future offers.
 */
import { Factory } from './helpers/factories';
import { countStatements } from './helpers/statements';
import { useClockedTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';
import { STORE_DETAIL_FRAGMENTS } from '../src/rest/fragments';
import { Store } from '../src/modules/stores/store.entity';

let server: TestServer;
let make: Factory;
// What a computed answer costs: without the answer cache, which would answer repeats with none.
const clock = useClockedTestServer(
  (s, f) => {
    server = s;
    make = f;
  },
  { READ_CACHE: 'off' },
);

const DAY = 24 * 3600 * 1000;
/** Monday 23 Nov 2026, 10:00 in Casablanca (UTC+1): inside 09:00–18:00; 20:00 is not. */
const OPEN = '2026-11-23T09:00:00Z';
const CLOSED = '2026-11-23T19:00:00Z';

/** A store of its own category, with hours, and offers active, expired, not started yet, of another store, global. */
async function storeWithEverything(over: Partial<Store> = {}) {
  const category = await make.storeCategory({ name: `Kind ${Math.random()}`, icon: 'pizza', sortOrder: 3 });
  const store = await make.store({
    category: category as never,
    description: 'Wood oven',
    hours: [1, 2, 3, 4, 5].map((d): [number, string, string] => [d, '09:00', '18:00']).concat([[6, '18:00', '02:00']]),
    ...over,
  });
  const now = Date.now();
  // Microseconds: the JSON column carries them as ISO text, the driver as its own text; both must parse to the same Date.
  const active = await make.offer({ storeId: store.id, startsAt: new Date(now - DAY), endsAt: new Date(now + DAY) });
  const open = await make.offer({
    storeId: store.id,
    startsAt: null,
    endsAt: null,
    description: 'open-ended',
    image: 'x.png',
    discount: 12.5,
  });
  await make.offer({ storeId: store.id, startsAt: new Date(now - 2 * DAY), endsAt: new Date(now - DAY) }); // expired
  await make.offer({ storeId: store.id, startsAt: new Date(now + DAY), endsAt: null }); // not started
  await make.offer({ storeId: (await make.store()).id });
  const global = await make.offer({ title: 'Everywhere' });
  await server.db.orm.em.fork().execute(`update offers set ends_at = ends_at + interval '123456 microseconds' where id = ?`, [active.id]);
  return { category, store, active, open, global };
}

/** The REST details of a store: one statement; and the same fields from a category's top stores (nothing primed). */
async function detailsAndReference(store: Store, categoryId: number) {
  const { count, result: res } = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/stores/${store.slug}`));
  expect(res.status).toBe(200);
  const reference = await server.http.graphql(
    `query { storeCategories { id topStores { ...RestStoreDetail } } } ${STORE_DETAIL_FRAGMENTS}`,
  );
  const [same] = reference.body.data.storeCategories.find((c: { id: number }) => c.id === categoryId).topStores;
  return { count, body: JSON.stringify(res.body.data), reference: JSON.stringify(same), data: res.body.data };
}

describe('GET /api/v1/store/stores/{store}', () => {
  it('answers in one statement exactly what the fields load on their own, open and closed', async () => {
    const { category, store, active, open } = await storeWithEverything();
    for (const [instant, isOpen] of [
      [OPEN, true],
      [CLOSED, false],
    ] as const) {
      clock.set(instant);
      await server.http.get(`/api/v1/store/stores/${store.id}`); // meets the zone (see below)
      const { count, body, reference, data } = await detailsAndReference(store, category.id);
      expect(count).toBe(1);
      expect(data.is_open).toBe(isOpen);
      expect(data.offers.map((o: { id: number }) => o.id)).toEqual([active.id, open.id]);
      expect(data.category_detail).toMatchObject({ id: category.id, icon: 'pizza', sort_order: 3 });
      expect(data.opening_hours).toHaveLength(6);
      expect(body).toEqual(reference);
    }
    const byId = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/stores/${store.id}`));
    expect(byId.count).toBe(1);
  });

  it('a store without category, hours or offers answers nulls and empty lists in one statement', async () => {
    const store = await make.store({ hours: [] });
    await server.http.get(`/api/v1/store/stores/${store.id}`);
    const { count, result } = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/stores/${store.id}`));
    expect(count).toBe(1);
    expect(result.body.data).toMatchObject({
      category: null,
      category_id: null,
      category_detail: null,
      opening_hours: [],
      offers: [],
      is_open: false,
    });
  });

  it('a zone the process has not met yet is decided by the loader once, then in the statement', async () => {
    clock.set('2026-11-23T21:00:00Z'); // Tuesday 10:45 in Chatham (UTC+13:45), Monday 21:00 in Casablanca
    const store = await make.store({ timezone: 'Pacific/Chatham', hours: [[2, '09:00', '11:00']] });
    const first = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/stores/${store.id}`));
    expect([first.count, first.result.body.data.is_open]).toEqual([2, true]);
    const second = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/stores/${store.id}`));
    expect([second.count, second.result.body.data.is_open]).toEqual([1, true]);
    clock.set('2026-11-23T23:30:00Z'); // 13:15 there
    expect((await server.http.get(`/api/v1/store/stores/${store.id}`)).body.data.is_open).toBe(false);
  });

  it('answers 404 in one statement for an unknown or inactive store', async () => {
    const inactive = await make.store({ isActive: false });
    for (const key of [String(inactive.id), inactive.slug, '999999', 'no-such-store']) {
      const { count, result } = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/stores/${key}`));
      expect([key, result.status, count]).toEqual([key, 404, 1]);
    }
  });
});

/** The catalog's menus selection (catalog.rest.ts), for the menus list: the same fields through loaders that nothing primed. */
const MENUS = `menus {
  id name description
  categories {
    id name
    products {
      id name description price image is_featured: isFeatured store_id: storeId menu_category_id: menuCategoryId
      options: optionGroups { id name is_required: isRequired min_select: minSelect max_select: maxSelect values { id name price } }
      supplements { id name price }
    }
  }
}`;

describe('GET /api/v1/store/stores/{id}/catalog and /api/v1/store/products', () => {
  async function bigStore() {
    const { store, active, open, global } = await storeWithEverything();
    const hidden = await make.menu(store, { isActive: false });
    await make.product(await make.menuCategory(hidden), { name: 'Hidden' });
    for (let m = 0; m < 2; m++) {
      const menu = await make.menu(store, { sortOrder: 2 - m });
      await make.menuCategory(menu, { name: 'Empty section' });
      for (let c = 0; c < 2; c++) {
        const category = await make.menuCategory(menu, { sortOrder: c % 2 });
        await make.product(category, { name: 'Retired', isActive: false });
        for (let i = 0; i < 3; i++) {
          const product = await make.product(category, { sortOrder: 3 - i });
          if (i !== 1) await make.optionGroup(product);
          if (i !== 2) await make.supplement(product);
        }
        await make.optionGroup(await make.product(category), {}, []);
      }
    }
    return { store, active, open, global };
  }

  it('the catalog answers in one statement the tree its loaders read, active offers and global ones, open and closed', async () => {
    const { store, active, open, global } = await bigStore();
    for (const [instant, isOpen] of [
      [OPEN, true],
      [CLOSED, false],
    ] as const) {
      clock.set(instant);
      await server.http.get(`/api/v1/store/stores/${store.id}/catalog`);
      const { count, result } = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/stores/${store.id}/catalog`));
      expect(count).toBe(1);
      const { data } = result.body;
      expect(data.store.is_open).toBe(isOpen);
      expect(data.offers.map((o: { id: number }) => o.id).filter((id: number) => id === global.id || id > open.id)).toEqual([global.id]);
      expect(data.offers.map((o: { id: number }) => o.id).filter((id: number) => id <= open.id && id >= active.id)).toEqual([
        active.id,
        open.id,
      ]);
      const reference = await server.http.graphql(`query($id: Int!) { menus(storeId: $id, perPage: 50) { ${MENUS} } }`, { id: store.id });
      expect(JSON.stringify(data.menus)).toEqual(JSON.stringify(reference.body.data.menus.menus));
      expect(data.menus).toHaveLength(2);
    }
  });

  it('store products answer in one statement, 404 included', async () => {
    const { store } = await bigStore();
    const { count, result } = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/products?store_id=${store.id}`));
    expect([result.status, count]).toEqual([200, 1]);
    expect(result.body.data).toHaveLength(2 * 2 * 4);
    const catalog = await server.http.get(`/api/v1/store/stores/${store.id}/catalog`);
    type P = { id: number };
    const inMenuOrder = catalog.body.data.menus.flatMap((m: { categories: { products: P[] }[] }) =>
      m.categories.flatMap((c) => c.products.map((p) => p.id)),
    );
    expect(result.body.data.map((p: P) => p.id)).toEqual(inMenuOrder);
    const inactive = await make.store({ isActive: false });
    const missing = await countStatements(server.db.orm, () => server.http.get(`/api/v1/store/products?store_id=${inactive.id}`));
    expect([missing.result.status, missing.count]).toEqual([404, 1]);
  });
});
