/**
 * What every hand-written twin (scripts/bench-twins/*.ts) shares: the `pg` pool it sends its
 * statements on, the placeholders of the service's SQL builders turned into pg's, "open now"
 * as the service decides it, and the JSON shapes of src/rest/fragments.ts written by hand.
 *
 * A twin answers one REST path like the service (the bench compares the bytes) with none of
 * the gateway: no GraphQL, no MikroORM, no REST adapter. Its statements are the service's own
 * text, built by the same pure SQL builders; the select lists that the service derives from
 * MikroORM's metadata (src/common/row-views.ts) are built once at start-up (`Texts`), as
 * constants, so a request costs the twin what a hand-written handler costs.
 */
import { Pool } from 'pg';
import { localTimesOf } from '../../src/modules/stores/local-time';

/** A row as a view reads it: the entity's columns under their property names, a many-to-one as its id. */
export type Row = Record<string, unknown>;

export interface Twin {
  pool: Pool;
  /** The zones met so far (src/modules/stores/local-time.ts `meetZone`): "open now" is decided in a statement for those. */
  zonesMet: Set<string>;
}

/**
 * knex's `?` placeholders as pg's `$n`, a list value as one placeholder per item (`in (?)`), as
 * MikroORM's execute expands them. The service inlines the values of `execute` statements into
 * their text; a hand-written handler binds them.
 */
export function bind(sql: string, params: readonly unknown[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  let k = 0;
  const text = sql.replace(/\?/g, () => {
    const value = params[k++];
    return Array.isArray(value) ? value.map((v) => `$${values.push(v)}`).join(', ') : `$${values.push(value)}`;
  });
  if (k !== params.length) throw new Error(`bind: ${k} placeholders for ${params.length} values`);
  return { text, values };
}

/** Rows of `sql` (knex placeholders) with `params`, sent unnamed (the service's `execute`). */
export async function rows<T = Row>(twin: Twin, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return (await twin.pool.query(bind(sql, params))).rows as T[];
}

const names = new Map<string, string>();

/** Rows of `sql` sent as a named prepared statement (the service's `executePrepared`: one parse per connection). */
export async function preparedRows<T = Row>(twin: Twin, sql: string, params: readonly unknown[]): Promise<T[]> {
  const { text, values } = bind(sql, params);
  let name = names.get(text);
  if (!name) names.set(text, (name = `twin_read_${names.size + 1}`));
  return (await twin.pool.query({ name, text, values })).rows as T[];
}

/** store.loaders.ts `openNowParams`: the wall clocks of the zones met, for `openNowSql`'s two placeholders. */
export function openNowParams(twin: Twin, now: Date): [string, string] {
  const times = localTimesOf(twin.zonesMet, now);
  return [times, times];
}

/**
 * "Open now" of the stores whose statement could not decide it (their zone not met yet): the
 * service's storeIsOpen loader, one statement for all of them; their zones are met after.
 */
export async function openOfUnmet(twin: Twin, stores: { id: number; timezone: string }[], now: Date): Promise<Map<number, boolean>> {
  if (stores.length === 0) return new Map();
  for (const s of stores) twin.zonesMet.add(s.timezone);
  const found = await rows<{ id: number; open: boolean }>(
    twin,
    `select id, store_is_open(id, ?::jsonb) as open from stores where id in (?)`,
    [localTimesOf(new Set(stores.map((s) => s.timezone)), now), [...new Set(stores.map((s) => s.id))]],
  );
  return new Map(found.map((r) => [r.id, r.open]));
}

/** The property names of a `viewObject` select (`json_build_object('id', p."id", ...)`), in its column order (`viewArray`'s). */
export function propertiesOf(viewObjectSql: string): string[] {
  return [...viewObjectSql.matchAll(/'(\w+)', \w+\."/g)].map((m) => m[1]);
}

/** A `viewArray` row as the object `viewObject` would have answered. */
export function fromArray(properties: readonly string[], values: readonly unknown[]): Row {
  const row: Row = {};
  properties.forEach((p, k) => (row[p] = values[k]));
  return row;
}

// The shapes below are src/rest/fragments.ts, field for field and in its order.

/** Money: cents in the database, 2 decimals in answers (src/common/money.ts). */
export const amount = (cents: unknown) => Math.round(cents as number) / 100;
/** A timestamp as GraphQL's DateTimeISO answers it. */
const iso = (at: unknown) => (at === null || at === undefined ? null : new Date(at as string).toISOString());
/** A distance in metres as km rounded to 10 m (store-query.ts kmOf). */
export const kmOf = (metres: number | null) => (metres === null ? null : Math.round(metres / 10) / 100);

/** RestStoreSummary. */
export function storeSummary(s: Row, category: string | null, distanceKm: number | null, open: boolean): Row {
  return {
    id: s.id,
    name: s.name,
    slug: s.slug,
    logo: s.logo,
    image: s.image,
    address: s.address,
    delivery_time: s.deliveryTime,
    category,
    category_id: s.category ?? null,
    rating: s.rating,
    rating_count: s.ratingCount,
    delivery_price: s.freeDelivery ? 0 : amount(s.deliveryPriceCents),
    free_delivery: s.freeDelivery,
    distance_km: distanceKm,
    is_open: open,
  };
}

/** RestProduct. */
export const product = (p: Row): Row => ({
  id: p.id,
  name: p.name,
  description: p.description,
  price: amount(p.priceCents),
  image: p.image,
  is_featured: p.isFeatured,
  store_id: p.store,
  menu_category_id: p.menuCategory ?? null,
});

/** RestOffer. */
export const offer = (o: Row): Row => ({
  id: o.id,
  title: o.title,
  description: o.description,
  discount: o.discount,
  token: o.token,
  image: o.image,
  store_id: o.store ?? null,
  starts_at: iso(o.startsAt),
  ends_at: iso(o.endsAt),
});

/** RestStoreCategory. */
export const storeCategory = (c: Row): Row => ({
  id: c.id,
  name: c.name,
  icon: c.icon,
  image: c.image,
  main_category_id: c.mainCategory ?? null,
  sort_order: c.sortOrder,
});

/** A priced choice (an option value, a supplement): `{ id name price }`. */
export const choice = (c: Row): Row => ({ id: c.id, name: c.name, price: amount(c.priceCents) });

/** `rows` grouped under each of `keys`, in the rows' order (src/common/batch-loader.ts groupBy). */
export function groupBy(rows: Row[], keyOf: (row: Row) => unknown): Map<unknown, Row[]> {
  const groups = new Map<unknown, Row[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}
