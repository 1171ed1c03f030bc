/**
 * Keeps one ReachIndex per database connection pool, in step with the database: every use
 * reads `store_reach_version` (one primary-key row that triggers set, in the writing
 * transaction, on every change of stores' reach data, opening hours or offers; see its
 * entity) — here (reachIndex), or in the statement that reads what the copy answered
 * (lastReachIndex) — and what a copy read at another version answered is never used. A stale copy is rebuilt in the
 * background while requests take the SQL path (small cities wait for it: it costs less than
 * the queries it saves). docs/decisions.md "City scale: an exact total from an in-process reach index".
 */
import { IsolationLevel } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { emptyColumns, HoursRow, openPeriods, ReachColumns, ReachIndex, ReachStore } from './reach-index';

/** A copy of at most this many stores is rebuilt while the request waits. */
const WAIT_FOR_REBUILD_STORES = 2000;

interface Holder {
  index?: ReachIndex;
  building?: Promise<ReachIndex>;
}

const holders = new WeakMap<object, Holder>();

/**
 * The database's current version of the reach data ('0' before any change was recorded), as
 * an SQL expression: a statement that reads a page can return it too, so the page and the
 * version come from one snapshot (lastReachIndex).
 */
export const REACH_VERSION_SQL = `coalesce((select version::text from store_reach_version where id = 1), '0')`;

async function currentVersion(em: EntityManager): Promise<string> {
  const [row] = await em.execute<{ version: string }[]>(`select ${REACH_VERSION_SQL} as version`);
  return row.version;
}

/**
 * The copy built last, not checked against the database (no statement): the caller must
 * select REACH_VERSION_SQL in the statement that reads what it derived from the copy, and
 * throw that answer away unless it equals the copy's version (then call reachIndex, which
 * starts the rebuild). Null while none exists or a rebuild is under way (reachIndex decides then).
 */
export function lastReachIndex(em: EntityManager): ReachIndex | null {
  const holder = holders.get(em.getConnection());
  return holder?.index && !holder.building ? holder.index : null;
}

/**
 * The index at the database's current version, or null when it is being rebuilt (the caller
 * then answers with SQL). `wait`: build it now whatever its size (tests, warm-up).
 */
export async function reachIndex(em: EntityManager, { wait = false } = {}): Promise<ReachIndex | null> {
  const key = em.getConnection();
  let holder = holders.get(key);
  if (!holder) holders.set(key, (holder = {}));
  const version = await currentVersion(em);
  if (holder.index?.version === version) return holder.index;
  const small = holder.index ? holder.index.size <= WAIT_FOR_REBUILD_STORES : await fewStores(em);
  const building = (holder.building ??= buildIndex(em.fork()).finally(() => (holder.building = undefined)));
  building.then(
    (index) => (holder.index = index), // builds run one at a time: the last one read the newest snapshot
    () => undefined, // the next request tries again (e.g. the pool was closing)
  );
  if (!wait && !small) return null;
  const index = await building.catch(() => null);
  // Equal versions only: versions are transaction ids, whose order is not the order of commits.
  return index?.version === version ? index : null;
}

/** Whether the city is small enough to wait for its first index (a bounded count). */
async function fewStores(em: EntityManager): Promise<boolean> {
  const [row] = await em.execute<{ n: string }[]>(
    `select count(*) as n from (select 1 from stores limit ${WAIT_FOR_REBUILD_STORES + 1}) s`,
  );
  return Number(row.n) <= WAIT_FOR_REBUILD_STORES;
}

/**
 * Reads every active store's reach data at one snapshot, with the version it was read at, and
 * indexes it after the commit. The read is a bulk read, not a request: it may run past the
 * requests' statement timeout (about 10 s at 1 000 000 stores), and the parsing and indexing
 * (tens of seconds at that size) happen outside the transaction, which would otherwise sit
 * idle past the idle-in-transaction timeout and hold a snapshot back from vacuum meanwhile.
 */
async function buildIndex(em: EntityManager): Promise<ReachIndex> {
  const { version, columns } = await em.transactional(
    async (tx) => {
      await tx.execute(`set local statement_timeout = ${BUILD_STATEMENT_TIMEOUT_MS}`);
      return { version: await currentVersion(tx), columns: await readReachColumns(tx) };
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
  return new ReachIndex(columns, version);
}

/**
 * readReachRows' rows as arrays (pg's rowMode 'array': no object per row) parsed straight into
 * the index's columns; the rows are garbage as soon as this returns. A million ReachStore
 * objects, with the lists and spread copies parsing made of them, took most of the build's
 * time and gigabytes of heap at 1 000 000 stores (docs/decisions.md "City scale").
 */
async function readReachColumns(em: EntityManager): Promise<ReachColumns> {
  const { rows } = (await em
    .getKnex()
    .raw(REACH_ROWS_SQL)
    .options({ rowMode: 'array' })
    .transacting(em.getTransactionContext()!)) as { rows: unknown[][] };
  const n = rows.length;
  const c = emptyColumns(n);
  const zoneOf = new Map<string, number>();
  const open: number[] = [];
  const offers: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = rows[i] as [number, number, number, number, number, number, number, number, number, boolean, number, number, number | null, string, string | null, string | null];
    c.id[i] = r[0];
    c.x[i] = r[1];
    c.y[i] = r[2];
    c.z[i] = r[3];
    c.reach[i] = r[4];
    c.lat[i] = r[5];
    c.lng[i] = r[6];
    c.rating[i] = r[7];
    c.ratingCount[i] = r[8];
    c.free[i] = r[9] ? 1 : 0;
    c.fee[i] = r[10];
    c.time[i] = r[11];
    c.category[i] = r[12] ?? -1;
    let zone = zoneOf.get(r[13]);
    if (zone === undefined) zoneOf.set(r[13], (zone = c.zones.push(r[13]) - 1));
    c.zone[i] = zone;
    pushOpenPeriods(r[14], open);
    c.openAt[i + 1] = open.length;
    pushNumbers(r[15], offers);
    c.offerAt[i + 1] = offers.length;
    rows[i] = []; // let the row go now: the heap holds one copy of the city, not two
  }
  c.open = Int32Array.from(open);
  c.offers = Float64Array.from(offers);
  return c;
}

/** The numbers of `text` (separated by ',' or ';') in order, without a list per row: Number of each token, as parseNumbers. */
function eachNumber(text: string, each: (v: number) => void): void {
  let start = 0;
  for (let k = 0; k <= text.length; k++) {
    const ch = k < text.length ? text.charCodeAt(k) : 59;
    if (ch === 44 || ch === 59) {
      each(Number(text.slice(start, k)));
      start = k + 1;
    }
  }
}

/** parseNumbers(text), appended to `out`. */
function pushNumbers(text: string | null, out: number[]): void {
  if (text) eachNumber(text, (v) => out.push(v));
}

/** openPeriods(parseHours(text)), appended to `out`: rows of day, opens, closes, past midnight (0/1). */
function pushOpenPeriods(text: string | null, out: number[]): void {
  if (!text) return;
  const row = [0, 0, 0, 0];
  let k = 0;
  eachNumber(text, (v) => {
    row[k++] = v;
    if (k < 4) return;
    k = 0;
    const [day, opens, closes, pastMidnight] = row;
    out.push(...openPeriods([{ day, opens, closes, pastMidnight: pastMidnight === 1 }]));
  });
}

/** The bulk read's own statement timeout (a background build, not a request). */
const BUILD_STATEMENT_TIMEOUT_MS = 300_000;

type ReachRow = Omit<ReachStore, 'open' | 'offers'> & { hours: string | null; windows: string | null };

/** Every active store's reach data: PostgreSQL's own cube coordinates and reach chords, hours and offers. */
export async function readReachStores(em: EntityManager): Promise<ReachStore[]> {
  return (await readReachRows(em)).map(reachStore);
}

function reachStore({ hours, windows, ...s }: ReachRow): ReachStore {
  return { ...s, open: openPeriods(parseHours(hours)), offers: parseNumbers(windows) };
}

async function readReachRows(em: EntityManager): Promise<ReachRow[]> {
  return em.execute<ReachRow[]>(REACH_ROWS_SQL);
}

/** Every active store's reach data, in the order of ReachRow's fields (readReachColumns reads them by position). */
const REACH_ROWS_SQL = `with h as (
       select store_id, string_agg(concat_ws(',', day_of_week, ceil(extract(epoch from opens_at)), ceil(extract(epoch from closes_at)),
                                             (closes_at <= opens_at)::int), ';') as hours
       from store_opening_hours group by store_id),
     o as (
       select store_id, string_agg(concat_ws(',', coalesce(extract(epoch from starts_at) * 1000, '-Infinity'),
                                             coalesce(extract(epoch from ends_at) * 1000, 'Infinity')), ';') as windows
       from offers where store_id is not null group by store_id)
     select s.id, cube_ll_coord(s.earth, 1) as x, cube_ll_coord(s.earth, 2) as y, cube_ll_coord(s.earth, 3) as z,
            2 * earth() * sin(s.delivery_radius_km * 1000 / (2 * earth())) as reach,
            s.latitude as lat, s.longitude as lng, s.rating, s.rating_count as "ratingCount",
            s.free_delivery as "freeDelivery", case when s.free_delivery then 0 else s.delivery_price_cents end as fee,
            s.delivery_time as "deliveryTime", s.category_id as "categoryId", s.timezone, h.hours, o.windows
     from stores s left join h on h.store_id = s.id left join o on o.store_id = s.id
     where s.is_active and s.earth is not null`;

function parseHours(text: string | null): HoursRow[] {
  if (!text) return [];
  return text.split(';').map((row) => {
    const [day, opens, closes, pastMidnight] = row.split(',').map(Number);
    return { day, opens, closes, pastMidnight: pastMidnight === 1 };
  });
}

function parseNumbers(text: string | null): number[] {
  return text ? text.split(/[;,]/).map(Number) : [];
}
