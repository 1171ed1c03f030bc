/**
 * The demo city generator (src/db/seed): deterministic, counted, within the platform's limits,
 * all-or-nothing, with the demo accounts owning stores.
 */
import 'reflect-metadata';
import { EntityManager } from '@mikro-orm/postgresql';
import { MAX_DELIVERY_RADIUS_KM } from '../src/common/geo';
import { normalizePhone } from '../src/common/phone';
import { loadConfig } from '../src/config';
import { Database } from '../src/db/orm';
import { CatalogNotEmptyError, DEMO_ACCOUNTS, isDatabaseEmpty, resetCatalog, seedDemoCity, SeedSummary } from '../src/db/seed/demo-city';
import { openTestDatabase } from './helpers/database';

const NOW = new Date('2026-03-04T12:00:00Z');
const STORES = 60;

/** One md5 per table over its rows in id order (timestamps of insertion left out). */
const FINGERPRINTS: Record<string, string> = {
  users: "select md5(string_agg(row(id, phone_number, first_name, last_name)::text, '|' order by id)) as h from users",
  stores: `select md5(string_agg(row(id, owner_id, category_id, name, slug, description, logo, image, address, latitude, longitude,
    delivery_radius_km, delivery_price_cents, free_delivery, delivery_time, rating, rating_count, order_count, timezone, is_active)::text,
    '|' order by id)) as h from stores`,
  hours: `select md5(string_agg(row(id, store_id, day_of_week, opens_at, closes_at)::text, '|' order by id)) as h from store_opening_hours`,
  menus: `select md5(string_agg(row(id, store_id, name, description, is_active, sort_order)::text, '|' order by id)) as h from menus`,
  products: `select md5(string_agg(row(id, store_id, menu_category_id, name, description, price_cents, image, is_featured, is_active,
    sort_order, order_count)::text, '|' order by id)) as h from products`,
  options: `select md5(string_agg(row(v.id, g.id, g.product_id, g.name, g.is_required, g.min_select, g.max_select, v.name, v.price_cents)::text,
    '|' order by v.id)) as h from product_option_values v join product_option_groups g on g.id = v.group_id`,
  supplements: `select md5(string_agg(row(id, product_id, name, price_cents)::text, '|' order by id)) as h from product_supplements`,
  offers: `select md5(string_agg(row(id, store_id, title, discount, token, image, starts_at, ends_at)::text, '|' order by id)) as h from offers`,
  ads: `select md5(string_agg(row(id, title, redirect_type, store_id, product_id, sort_order, is_active, starts_at, ends_at)::text,
    '|' order by id)) as h from ads`,
};

async function fingerprint(em: EntityManager): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const [name, sql] of Object.entries(FINGERPRINTS)) {
    const [row] = await em.execute<{ h: string | null }[]>(sql);
    result[name] = row.h ?? '(empty)';
  }
  return result;
}

async function count(em: EntityManager, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await em.execute<{ n: string | number }[]>(sql, params);
  return Number(row.n);
}

let first: Database;
let second: Database;
let summary: SeedSummary;
const em = () => first.orm.em.fork();

beforeAll(async () => {
  first = await openTestDatabase();
  second = await openTestDatabase();
  summary = await seedDemoCity(first.orm.em.fork(), { stores: STORES, seed: 7, now: NOW });
  await seedDemoCity(second.orm.em.fork(), { stores: STORES, seed: 7, now: NOW });
}, 120_000);

afterAll(async () => {
  await first?.close();
  await second?.close();
});

describe('demo city', () => {
  it('is the same city for the same seed, row for row', async () => {
    const a = await fingerprint(em());
    const b = await fingerprint(second.orm.em.fork());
    expect(Object.values(a)).not.toContain('(empty)');
    expect(b).toEqual(a);
  });

  it('is another city for another seed', async () => {
    const other = await openTestDatabase();
    try {
      await seedDemoCity(other.orm.em.fork(), { stores: STORES, seed: 8, now: NOW });
      const a = await fingerprint(em());
      const c = await fingerprint(other.orm.em.fork());
      expect(c.stores).not.toEqual(a.stores);
      expect(c.products).not.toEqual(a.products);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('holds exactly what its summary counts', async () => {
    const tables: [keyof SeedSummary, string][] = [
      ['mainCategories', 'main_categories'],
      ['storeCategories', 'store_categories'],
      ['users', 'users'],
      ['stores', 'stores'],
      ['openingHours', 'store_opening_hours'],
      ['menus', 'menus'],
      ['menuCategories', 'menu_categories'],
      ['products', 'products'],
      ['optionGroups', 'product_option_groups'],
      ['optionValues', 'product_option_values'],
      ['supplements', 'product_supplements'],
      ['offers', 'offers'],
      ['ads', 'ads'],
    ];
    for (const [key, table] of tables) {
      expect({ table, rows: await count(em(), `select count(*) as n from "${table}"`) }).toEqual({ table, rows: summary[key] });
    }
    expect(summary.stores).toBe(STORES);
    expect(await count(em(), 'select count(*) as n from stores where is_active')).toBe(summary.activeStores);
    expect(summary.products).toBeGreaterThan(STORES * 5);
    expect(summary.ads).toBeGreaterThanOrEqual(6);
    expect(summary.ads).toBeLessThanOrEqual(8);
  });

  it('keeps every store within the platform limits', async () => {
    const outside = await em().execute(
      `select id, name, delivery_radius_km from stores
       where not (delivery_radius_km > 0 and delivery_radius_km <= ?)
          or delivery_time not between 15 and 60
          or delivery_price_cents not between 0 and 2500
          or (free_delivery and delivery_price_cents <> 0)
          or rating not between 3 and 5 or rating_count not between 0 and 2000
          or timezone <> 'Africa/Casablanca'
          or earth_distance(ll_to_earth(latitude, longitude), ll_to_earth(33.5731, -7.5898)) > 25500`,
      [MAX_DELIVERY_RADIUS_KM],
    );
    expect(outside).toEqual([]);
    // Required option groups ask for at least one value; no group allows fewer than it requires.
    expect(
      await count(
        em(),
        'select count(*) as n from product_option_groups where (is_required and min_select < 1) or max_select < min_select',
      ),
    ).toBe(0);
    // Every store category belongs to a main category; every product to a category of a menu of its store.
    expect(await count(em(), 'select count(*) as n from store_categories where main_category_id is null')).toBe(0);
    expect(
      await count(
        em(),
        `select count(*) as n from products p join menu_categories mc on mc.id = p.menu_category_id join menus m on m.id = mc.menu_id
         where mc.store_id <> p.store_id or m.store_id <> p.store_id`,
      ),
    ).toBe(0);
    expect(await count(em(), 'select count(*) as n from products where menu_category_id is null')).toBe(0);
  });

  it('has a store open past midnight: open inside the late period, closed in the morning', async () => {
    const [late] = await em().execute<{ store_id: number; opens: string; closes: string }[]>(
      `select store_id, min(opens_at)::text as opens, min(closes_at)::text as closes from store_opening_hours
       group by store_id
       having count(*) = 7 and count(distinct opens_at) = 1 and count(distinct closes_at) = 1
          and min(closes_at) < min(opens_at) and min(closes_at) > '00:00'
       order by store_id limit 1`,
    );
    expect(late).toBeDefined();
    const [row] = await em().execute<{ late: boolean; closed: boolean; evening: boolean }[]>(
      `select store_is_open(?, jsonb_build_object('Africa/Casablanca', date '2026-03-04' + ?::time - interval '30 minutes')) as late,
              store_is_open(?, jsonb_build_object('Africa/Casablanca', date '2026-03-04' + ?::time + (?::time - ?::time) / 2)) as closed,
              store_is_open(?, jsonb_build_object('Africa/Casablanca', date '2026-03-04' + ?::time + interval '30 minutes')) as evening`,
      [late.store_id, late.closes, late.store_id, late.closes, late.opens, late.closes, late.store_id, late.opens],
    );
    expect(row).toEqual({ late: true, closed: false, evening: true });
  });

  it('mixes opening hours, inactive rows, featured products and accented names', async () => {
    expect(
      await count(
        em(),
        'select count(*) as n from (select store_id from store_opening_hours group by store_id having count(distinct day_of_week) < 7) s',
      ),
    ).toBeGreaterThan(0);
    expect(await count(em(), 'select count(*) as n from stores where not is_active')).toBeLessThan(STORES * 0.1);
    expect(await count(em(), 'select count(*) as n from products where is_featured')).toBeGreaterThan(0);
    expect(await count(em(), 'select count(*) as n from products where not is_active')).toBeGreaterThan(0);
    expect(await count(em(), 'select count(*) as n from products where order_count > 0')).toBeGreaterThan(0);
    // Accent-insensitive search has something to show: "creme", "cafe", "patisserie".
    expect(await count(em(), 'select count(*) as n from products where search_text(name) <> lower(name)')).toBeGreaterThan(0);
  });

  it('dates offers and ads around now: active, expired and upcoming; global banners with images', async () => {
    const active = `(starts_at is null or starts_at <= ?) and (ends_at is null or ends_at > ?)`;
    const globals = await em().execute<{ image: string | null }[]>(`select image from offers where store_id is null and ${active}`, [
      NOW,
      NOW,
    ]);
    expect(globals.length).toBeGreaterThanOrEqual(3);
    expect(globals.length).toBeLessThanOrEqual(5);
    for (const o of globals) expect(o.image).toMatch(/^https:\/\/cdn\.example\.com\/offers\/.+\.jpg$/);
    expect(await count(em(), `select count(*) as n from offers where store_id is not null and ${active}`, [NOW, NOW])).toBeGreaterThan(0);
    const tokens = await em().execute<{ token: string }[]>('select token from offers');
    for (const { token } of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(await count(em(), 'select count(*) as n from offers where discount not between 5 and 50')).toBe(0);

    const ads = await em().execute<
      { redirect_type: string; store_id: number | null; product_id: number | null; is_active: boolean; ends_at: Date | null }[]
    >('select a.redirect_type, a.store_id, a.product_id, a.is_active, a.ends_at from ads a order by sort_order');
    for (const ad of ads) {
      expect(['store_screen', 'product_screen']).toContain(ad.redirect_type);
      expect(ad.store_id).not.toBeNull();
      if (ad.redirect_type === 'product_screen') expect(ad.product_id).not.toBeNull();
    }
    expect(ads.some((a) => !a.is_active)).toBe(true);
    expect(ads.some((a) => a.ends_at !== null && new Date(a.ends_at) < NOW)).toBe(true);
    expect(ads.filter((a) => a.is_active && (a.ends_at === null || new Date(a.ends_at) > NOW)).length).toBeGreaterThanOrEqual(4);
  });

  it('creates the demo customer, owners who own stores, drivers and promo codes; the demo phones sign in with 123456 in development', async () => {
    const rows = await em().execute<{ phone_number: string; first_name: string; last_name: string; stores: string }[]>(
      `select u.phone_number, u.first_name, u.last_name, count(s.id) as stores
       from users u left join stores s on s.owner_id = u.id
       where u.phone_number in (?) group by u.id order by u.phone_number`,
      [DEMO_ACCOUNTS.map((a) => a.phone)],
    );
    expect(rows.map((r) => [r.phone_number, `${r.first_name} ${r.last_name}`, Number(r.stores) > 0])).toEqual([
      ['+15550000001', 'Demo Customer', false],
      ['+15550001001', 'Demo Owner 1', true],
      ['+15550001002', 'Demo Owner 2', true],
      ['+15550001003', 'Demo Owner 3', true],
      ['+15550002001', 'Demo Driver 1', false],
      ['+15550002002', 'Demo Driver 2', false],
    ]);
    const drivers = await em().execute(`select u.phone_number, d.is_online from drivers d join users u on u.id = d.user_id order by 1`);
    expect(drivers).toEqual([
      { phone_number: '+15550002001', is_online: false },
      { phone_number: '+15550002002', is_online: false },
    ]);
    const promos = await em().execute<{ code: string }[]>(`select code from promo_codes where is_active order by code`);
    expect(promos.map((p) => p.code)).toEqual(['FIRST100', 'SAVE15', 'WELCOME10']);
    for (const account of summary.demoAccounts.filter((a) => a.role === 'store owner')) {
      expect(account.stores.length).toBeGreaterThanOrEqual(3);
    }
    const development = loadConfig({ NODE_ENV: 'development' });
    for (const account of DEMO_ACCOUNTS) expect(development.otp.testNumbers.get(account.phone)).toBe(account.code);

    // The other owners have valid, distinct numbers and at least one store each.
    const owners = await em().execute<{ phone_number: string }[]>(
      `select u.phone_number from users u where exists (select 1 from stores s where s.owner_id = u.id) and u.phone_number not like '+1555%'`,
    );
    expect(owners.length).toBeGreaterThan(5);
    for (const { phone_number } of owners) expect(normalizePhone(phone_number)).toBe(phone_number);
    expect(await count(em(), 'select count(*) as n from stores where owner_id is null')).toBe(0);
  });

  it('refuses a database that has stores, and bad options, before writing anything', async () => {
    await expect(seedDemoCity(em(), { stores: 5, seed: 1 })).rejects.toBeInstanceOf(CatalogNotEmptyError);
    await expect(seedDemoCity(em(), { stores: 0 })).rejects.toThrow(/stores must be a whole number/);
    await expect(seedDemoCity(em(), { stores: 10, center: { lat: 120, lng: 0 } })).rejects.toThrow(/center/);
    expect(await count(em(), 'select count(*) as n from stores')).toBe(STORES);
    expect(await isDatabaseEmpty(em())).toBe(false);
  });

  it('leaves nothing behind when it fails part-way, and loads afterwards', async () => {
    const db = await openTestDatabase();
    try {
      const fresh = () => db.orm.em.fork();
      const stopped = new Error('stopped on purpose after the first stores were written');
      await expect(
        seedDemoCity(fresh(), {
          stores: 600,
          seed: 3,
          onProgress: (done) => {
            if (done >= 250) throw stopped;
          },
        }),
      ).rejects.toBe(stopped);
      for (const table of [
        'users',
        'main_categories',
        'store_categories',
        'stores',
        'store_opening_hours',
        'menus',
        'products',
        'product_option_values',
        'offers',
        'ads',
      ]) {
        expect({ table, rows: await count(fresh(), `select count(*) as n from "${table}"`) }).toEqual({ table, rows: 0 });
      }
      expect(await isDatabaseEmpty(fresh())).toBe(true);

      const loaded = await seedDemoCity(fresh(), { stores: 10, seed: 3 });
      expect(await count(fresh(), 'select count(*) as n from stores')).toBe(10);
      expect(loaded.stores).toBe(10);

      // A reset empties the catalogue but keeps the users; seeding again reuses their accounts.
      await resetCatalog(fresh());
      expect(await isDatabaseEmpty(fresh())).toBe(true);
      const users = await count(fresh(), 'select count(*) as n from users');
      await seedDemoCity(fresh(), { stores: 10, seed: 3 });
      expect(await count(fresh(), 'select count(*) as n from users')).toBe(users);
      expect(
        await count(fresh(), `select count(*) as n from stores s join users u on u.id = s.owner_id where u.phone_number = '+15550001001'`),
      ).toBe(5);
    } finally {
      await db.close();
    }
  }, 60_000);
});
