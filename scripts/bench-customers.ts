/**
 * The customers of the bench's checkout path (issue 26) and of `npm run peak`: `count`
 * customers of the bench city (created once, phones +2127000xxxxx), each with one saved address
 * ~100 m from a store of their own (or shared: `storeCount`) that is open now and in an hour, and an access token each, signed as the service
 * signs them. Each request of the path is another customer (round robin) ordering from their
 * store a varied cart: 1–3 lines of its visible products that need no choice, quantity 1–3,
 * sometimes an optional option value and a supplement; every request carries a new
 * Idempotency-Key, as the app sends one. (The service the bench starts lets a customer order
 * without the per-minute limits: bench-service-env.ts.)
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Random } from '../src/db/seed/random';
import { localTimesOf } from '../src/modules/stores/local-time';
import { benchSigner, type BenchRequest } from './bench-drivers';

/** A product a cart may hold, with what may be added to it (none of its option groups is required). */
export interface MenuItem {
  productId: number;
  /** Values of its optional groups, one group's values per entry. */
  optionGroups: number[][];
  supplements: number[];
}

export interface BenchCustomer {
  userId: number;
  token: string;
  /** The customer's own client address (10.x.y.z), sent as X-Forwarded-For: see `checkoutRequests`. */
  clientIp: string;
  addressId: number;
  storeId: number;
  menu: MenuItem[];
}

/** `count` customers, of `storeCount` stores (customer k orders from store k mod storeCount). */
export async function prepareCustomers(databaseUrl: string, count: number, storeCount = count): Promise<BenchCustomer[]> {
  const rnd = new Random(28);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const zones = (await client.query<{ timezone: string }>(`select distinct timezone from stores`)).rows.map((r) => r.timezone);
    const now = new Date();
    const [timesNow, timesLater] = [now, new Date(now.getTime() + 3600_000)].map((at) => localTimesOf(zones, at));
    // Stores with at least two products a cart can hold as they are, the same ones every run.
    const { rows: stores } = await client.query<{ id: number; latitude: number; longitude: number; open: boolean }>(
      `select s.id, s.latitude, s.longitude, store_is_open(s.id, $1::jsonb) and store_is_open(s.id, $2::jsonb) as open from stores s
       where s.is_active
         and (select count(*) from products p join menu_categories mc on mc.id = p.menu_category_id join menus m on m.id = mc.menu_id
              where p.store_id = s.id and p.is_active and m.is_active
                and not exists (select 1 from product_option_groups g where g.product_id = p.id and g.is_required)) >= 2
       order by md5(s.id::text) limit $3`,
      [timesNow, timesLater, storeCount],
    );
    if (stores.length < storeCount)
      throw new Error(`the bench city has ${stores.length} stores with a menu to order from, ${storeCount} wanted`);
    // Open for the whole run at any hour (CI runs at night too): in the bench's own city, those
    // closed now or within the hour open around the clock (a period that ends where it starts).
    const closed = stores.filter((s) => !s.open).map((s) => s.id);
    if (closed.length > 0) {
      await client.query('begin');
      await client.query(`delete from store_opening_hours where store_id = any($1::int[])`, [closed]);
      await client.query(
        `insert into store_opening_hours (store_id, day_of_week, opens_at, closes_at)
         select s, d, '00:00', '00:00' from unnest($1::int[]) s cross join generate_series(0, 6) d`,
        [closed],
      );
      await client.query('commit');
    }
    const { rows: products } = await client.query<{
      store_id: number;
      id: number;
      groups: number[][] | null;
      supplements: number[] | null;
    }>(
      `select p.store_id, p.id,
         (select json_agg(vals) from (
            select array_agg(v.id order by v.id) as vals from product_option_groups g join product_option_values v on v.group_id = g.id
            where g.product_id = p.id and g.min_select <= 1 and g.max_select >= 1 group by g.id) x) as groups,
         (select array_agg(ps.id order by ps.id) from product_supplements ps where ps.product_id = p.id) as supplements
       from products p join menu_categories mc on mc.id = p.menu_category_id join menus m on m.id = mc.menu_id
       where p.store_id = any($1::int[]) and p.is_active and m.is_active
         and not exists (select 1 from product_option_groups g where g.product_id = p.id and g.is_required)
       order by p.store_id, p.id`,
      [stores.map((s) => s.id)],
    );
    const menus = new Map<number, MenuItem[]>();
    for (const p of products) {
      const menu = menus.get(p.store_id) ?? [];
      if (menu.length < 8) menu.push({ productId: p.id, optionGroups: p.groups ?? [], supplements: p.supplements ?? [] });
      menus.set(p.store_id, menu);
    }

    const phones = Array.from({ length: count }, (_, k) => `+2127000${String(k).padStart(5, '0')}`);
    await client.query(
      `insert into users (phone_number, first_name, last_name)
       select p, 'Bench', 'Customer ' || right(p, 5) from unnest($1::text[]) p on conflict (phone_number) do nothing`,
      [phones],
    );
    const { rows: users } = await client.query<{ id: number }>(
      `select id from users where phone_number = any($1::text[]) order by phone_number`,
      [phones],
    );
    // A new address each run, near this run's store (a store may have closed since the last).
    await client.query(`delete from user_addresses where user_id = any($1::int[]) and label = 'Bench'`, [users.map((u) => u.id)]);
    const points = users
      .map((_, k) => stores[k % stores.length])
      .map((s) => ({ lat: s.latitude + (rnd.next() - 0.5) * 0.002, lng: s.longitude + (rnd.next() - 0.5) * 0.002 }));
    const { rows: addresses } = await client.query<{ id: number; user_id: number }>(
      `insert into user_addresses (user_id, label, line1, city, latitude, longitude)
       select u, 'Bench', '1 Rue du Bench', 'Casablanca', lat, lng from unnest($1::int[], $2::float8[], $3::float8[]) as a(u, lat, lng)
       returning id, user_id`,
      [users.map((u) => u.id), points.map((p) => p.lat), points.map((p) => p.lng)],
    );
    const addressOf = new Map(addresses.map((a) => [a.user_id, a.id]));
    const token = benchSigner(databaseUrl);
    return users.map((u, k) => ({
      userId: u.id,
      addressId: addressOf.get(u.id)!,
      storeId: stores[k % stores.length].id,
      menu: menus.get(stores[k % stores.length].id)!,
      token: token(u.id),
      clientIp: `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`,
    }));
  } finally {
    await client.end();
  }
}

/** A cart of the customer's store: 1–3 distinct lines, quantity 1–3, sometimes an option value and a supplement. */
export function cartOf(customer: BenchCustomer, rnd: Random): Record<string, unknown> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd.next() * list.length)];
  const lines = 1 + Math.floor(rnd.next() * Math.min(3, customer.menu.length));
  const chosen = new Set<MenuItem>();
  while (chosen.size < lines) chosen.add(pick(customer.menu));
  const items = [...chosen].map((m) => {
    const item: Record<string, unknown> = { product_id: m.productId, quantity: 1 + Math.floor(rnd.next() * 3) };
    if (m.optionGroups.length > 0 && rnd.next() < 0.4) item.options = [pick(pick(m.optionGroups))];
    if (m.supplements.length > 0 && rnd.next() < 0.4) item.supplements = [pick(m.supplements)];
    return item;
  });
  return { store_id: customer.storeId, address_id: customer.addressId, items };
}

/**
 * Requests of the checkouts path: each another customer (round robin), a new cart and a new
 * Idempotency-Key, from the customer's own address as a load balancer forwards it
 * (X-Forwarded-For; the bench's services trust one proxy, bench-service-env.ts). Before, every
 * checkout came from 127.0.0.1 and counted one `orders:ip:` row, each count waiting for the
 * previous one's commit: a queue no set of real customers forms (docs/perf/2026-11-27-checkout-6.md).
 * `oneAddress`: that reading, every request from the bench's own address (no X-Forwarded-For).
 */
export function checkoutRequests(customers: BenchCustomer[], { oneAddress = false } = {}): () => BenchRequest {
  const rnd = new Random(29);
  const run = randomUUID();
  let k = 0;
  return () => {
    const customer = customers[k % customers.length];
    return {
      method: 'POST',
      path: '/api/v1/customer/orders',
      headers: {
        authorization: `Bearer ${customer.token}`,
        'content-type': 'application/json',
        'idempotency-key': `bench-${run}-${k++}`,
        ...(oneAddress ? {} : { 'x-forwarded-for': customer.clientIp }),
      },
      body: JSON.stringify(cartOf(customer, rnd)),
    };
  };
}
