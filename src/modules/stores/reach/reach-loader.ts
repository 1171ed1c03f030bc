/**
 * Keeps one copy of the reach index per database connection pool, in step with the database:
 * every use reads `store_reach_version` (one primary-key row that triggers set, in the writing
 * transaction, on every change of stores' reach data, opening hours or offers; see its
 * entity) — here (reachIndex), or in the statement that reads what the copy answered
 * (lastReachIndex) — and what a copy read at another version answered is never used. A copy
 * behind the database catches up from the change log (catchUp: the stores changed since its
 * snapshot, re-read; the request waits for that, a few milliseconds); when the log cannot
 * tell (a truncate, a bulk write, pruned past the copy) the copy is rebuilt in the background
 * while requests take the SQL path (small cities wait for it: it costs less than the queries
 * it saves). A catch-up that fails (a timeout, a lost connection) is not a reason to rebuild:
 * that request and those of the next second take the SQL path, then a catch-up is tried again.
 * A copy is replaced only by one read at a later snapshot, whatever lands first.
 * docs/decisions.md "Nearby: the in-process reach index",
 * "Nearby: the reach index under store edits".
 */
import { IsolationLevel } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { emptyColumns, HoursRow, openPeriods, ReachAnswers, ReachColumns, ReachIndex, ReachStore } from './reach-index';
import { PatchedReachIndex } from './reach-patch';

/** A copy of at most this many stores is rebuilt while the request waits. */
const WAIT_FOR_REBUILD_STORES = 2000;
/** Stores changed in one catch-up beyond which the copy is rebuilt instead. */
const CATCH_UP_MAX_STORES = 2000;
/** Stores patched over a copy beyond which it is rebuilt in the background (answering meanwhile). */
const COMPACT_PATCHED_STORES = 1000;
/** Log rows older than this are pruned (a copy that has not caught up for that long rebuilds). */
const LOG_KEEP = '10 minutes';
/** How often one process prunes the log at most. */
const PRUNE_EVERY_MS = 60_000;
/** Log rows one prune statement deletes at most (each its own short transaction; whole transactions' rows). */
const PRUNE_BATCH_ROWS = 5000;
/** After a catch-up failed with an error, requests take the SQL path this long before the next try. */
const CATCH_UP_RETRY_MS = 1000;
/** After a background rebuild of a patched copy failed, catch-ups start none for this long. */
const COMPACT_RETRY_MS = 60_000;
/** A copy's snapshot older than this is refreshed from a statement that saw the copy's version (noteReachSnapshot). */
const REFRESH_SNAPSHOT_MS = 60_000;

/** A copy and what it was read at: its snapshot (pg_current_snapshot, taken at `takenAt`) and the whole copy under its patch. */
interface Copy {
  index: ReachAnswers;
  snapshot: string;
  takenAt: number;
  base: ReachIndex;
  changed: ReadonlyMap<number, ReachStore | null>;
}

interface Holder {
  /** The operator turned the index off for this pool (REACH_INDEX=off): every list answers from SQL. */
  off?: boolean;
  copy?: Copy;
  /** A rebuild; `compacting`: the copy in hand still answers meanwhile (it is current, only patched a lot). */
  building?: Promise<Copy>;
  compacting?: boolean;
  catching?: Promise<Copy | null>;
  prunedAt?: number;
  /** When a catch-up last failed with an error, and a build (CATCH_UP_RETRY_MS, COMPACT_RETRY_MS). */
  catchUpFailedAt?: number;
  buildFailedAt?: number;
}

const holders = new WeakMap<object, Holder>();

/**
 * How many times each pool's copy was rebuilt, caught up, and failed to catch up with an
 * error (tests assert which path ran); how many prunes of the log ended, and the rows they deleted;
 * how many times the log of another cluster was found (forgetAnotherCluster).
 */
export const reachLoads = { builds: 0, catchUps: 0, failedCatchUps: 0, prunes: 0, pruned: 0, otherClusters: 0 };

/**
 * The database's current version of the reach data ('0' before any change was recorded), as
 * an SQL expression: a statement that reads a page can return it too, so the page and the
 * version come from one snapshot (lastReachIndex).
 */
export const REACH_VERSION_SQL = `coalesce((select version::text from store_reach_version where id = 1), '0')`;

/** The snapshot of the statement it is part of, as text (once per statement): see noteReachSnapshot. */
export const REACH_SNAPSHOT_SQL = `(select pg_current_snapshot()::text)`;

async function currentVersion(em: EntityManager): Promise<{ version: string; snapshot: string }> {
  const [row] = await em.execute<{ version: string; snapshot: string }[]>(
    `select ${REACH_VERSION_SQL} as version, ${REACH_SNAPSHOT_SQL} as snapshot`,
  );
  return row;
}

/**
 * The copy built last, not checked against the database (no statement): the caller must
 * select REACH_VERSION_SQL in the statement that reads what it derived from the copy, and
 * throw that answer away unless it equals the copy's version (then call reachIndex, which
 * catches up or starts the rebuild). Null while none exists or a rebuild is under way (reachIndex decides then).
 */
export function lastReachIndex(em: EntityManager): ReachAnswers | null {
  const holder = holders.get(em.getConnection());
  return holder?.copy && (!holder.building || holder.compacting) ? holder.copy.index : null;
}

/** Turns the index off for `em`'s pool (REACH_INDEX=off): no copy is built, and every list answers from SQL. */
export function turnReachIndexOff(em: EntityManager): void {
  const key = em.getConnection();
  holders.set(key, { off: true });
}

/**
 * A statement read `index`'s version (equal: the caller checked) at `snapshot` (REACH_SNAPSHOT_SQL
 * in the same statement): the copy is the database at that snapshot too, since every change of
 * reach data sets the version. The copy takes it when its own is older than REFRESH_SNAPSHOT_MS
 * (so the horizon of a prune does not pass a transaction that was in progress at an old
 * snapshot, which would make the next catch-up rebuild:
 * docs/perf/2026-11-25-reach-index-under-edits.md, review item 5).
 */
export function noteReachSnapshot(em: EntityManager, index: ReachAnswers, snapshot: string | undefined): void {
  const holder = holders.get(em.getConnection());
  const copy = holder?.copy;
  if (!copy || copy.index !== index || !snapshot || Date.now() - copy.takenAt < REFRESH_SNAPSHOT_MS) return;
  adopt(holder, { ...copy, snapshot, takenAt: Date.now() });
}

/**
 * Whether snapshot `a` was taken after `b` by the same server (sees more). Snapshots only grow:
 * xmax (one past the latest completed transaction id) never goes down, and at the same xmax
 * a later snapshot's in-progress list is a subset of the earlier one's (new transactions take
 * ids from xmax on).
 */
export function laterSnapshot(a: string, b: string): boolean {
  const [, aXmax, aXip] = a.split(':');
  const [, bXmax, bXip] = b.split(':');
  if (aXmax !== bXmax) return BigInt(aXmax) > BigInt(bXmax);
  const count = (xip: string | undefined) => (xip ? xip.split(',').length : 0);
  return count(aXip) < count(bXip);
}

/**
 * Makes `copy` the holder's unless the copy in hand was read at a later snapshot: a catch-up
 * and a rebuild run side by side, and the one that lands last may have read first. At the
 * same snapshot the two hold the same stores: the one landing (a compaction's unpatched
 * copy, a refreshed snapshot) is taken.
 */
function adopt(holder: Holder, copy: Copy): void {
  if (!holder.copy || !laterSnapshot(holder.copy.snapshot, copy.snapshot)) holder.copy = copy;
}

/**
 * The index at the database's current version, or null when it is being rebuilt or a catch-up
 * failed (the caller then answers with SQL). `wait`: build it now whatever its size (tests, warm-up).
 */
export async function reachIndex(em: EntityManager, { wait = false } = {}): Promise<ReachAnswers | null> {
  const key = em.getConnection();
  let holder = holders.get(key);
  if (!holder) holders.set(key, (holder = {}));
  if (holder.off) return null;
  const { version, snapshot } = await currentVersion(em);
  if (holder.copy?.index.version === version) {
    noteReachSnapshot(em, holder.copy.index, snapshot);
    return holder.copy.index;
  }
  if (holder.copy && (!holder.building || holder.compacting)) {
    if (holder.catchUpFailedAt !== undefined && Date.now() - holder.catchUpFailedAt < CATCH_UP_RETRY_MS) return null;
    let caught: Copy | null;
    try {
      // Catch-ups run one at a time, each from the copy the last one left.
      caught = await (holder.catching ??= catchUp(em.fork(), holder).finally(() => (holder.catching = undefined)));
    } catch {
      return null; // an error, not an answer: SQL answers, and a later request tries again
    }
    if (caught) return caught.index.version === version ? caught.index : null;
  }
  return rebuilt(em, holder, version, wait);
}

/** Starts a rebuild (unless one runs) and waits for it when asked or when the city is small. */
async function rebuilt(em: EntityManager, holder: Holder, version: string, wait: boolean): Promise<ReachAnswers | null> {
  const small = holder.copy ? holder.copy.index.size <= WAIT_FOR_REBUILD_STORES : await fewStores(em);
  if (holder.compacting) holder.compacting = false; // the copy in hand is behind now: stop answering from it
  const building = startBuild(em, holder);
  if (!wait && !small) return null;
  const copy = await building.catch(() => null);
  // Equal versions only: versions are transaction ids, whose order is not the order of commits.
  return copy?.index.version === version ? copy.index : null;
}

function startBuild(em: EntityManager, holder: Holder): Promise<Copy> {
  if (holder.building) return holder.building;
  // The copy is the holder's before the build is over: no moment without either.
  const building = (holder.building = buildCopy(em.fork())
    .then(
      (copy) => {
        adopt(holder, copy);
        prune(em, holder);
        return copy;
      },
      (error: unknown) => {
        holder.buildFailedAt = Date.now(); // the next request tries again (e.g. the pool was closing)
        throw error;
      },
    )
    .finally(() => {
      holder.building = undefined;
      holder.compacting = false;
    }));
  building.catch(() => undefined);
  return building;
}

/**
 * The copy at the database's snapshot now, from the copy in hand: in one repeatable-read
 * snapshot, the stores of every log row whose transaction the copy's snapshot did not see
 * (ids from its xmax on, or in its in-progress list: exactly those, whatever the order of
 * transaction ids and commits) are re-read and patched over the copy's base. Null when the
 * log cannot tell: a row without a store, too many stores, or rows pruned past the copy's
 * snapshot (then the caller rebuilds). Rejects on an error (the caller does not rebuild).
 * Sets the holder's copy unless a later one landed meanwhile (then returns that one).
 */
async function catchUp(em: EntityManager, holder: Holder): Promise<Copy | null> {
  const from = holder.copy!;
  let read: { version: string; snapshot: string; changed: Map<number, ReachStore | null> } | null;
  try {
    read = await em.transactional(
      async (tx) => {
        // The log is complete for the copy unless a pruned row's transaction was one its snapshot
        // did not see: ids from the snapshot's xmax on, or one in progress then (xip) that has
        // committed since and left no row (checkable: a transaction's rows are pruned together).
        // Comparing xmin alone would rebuild while any long transaction runs on the server.
        const [head] = await tx.execute<{ version: string; snapshot: string; complete: boolean; xmax: string; xip: string }[]>(
          `with h as (select coalesce((select log_pruned_below from store_reach_version where id = 1), 0) as pruned)
           select ${REACH_VERSION_SQL} as version, pg_current_snapshot()::text as snapshot,
                  pg_snapshot_xmax(?::pg_snapshot)::text as xmax,
                  array(select x::text::bigint from pg_snapshot_xip(?::pg_snapshot) x)::text as xip,
                  h.pruned <= pg_snapshot_xmax(?::pg_snapshot)::text::bigint
                  and not exists (select 1 from pg_snapshot_xip(?::pg_snapshot) x
                                  where x::text::bigint < h.pruned and coalesce(pg_xact_status(x), 'committed') = 'committed'
                                    and not exists (select 1 from store_reach_changes c where c.xid = x::text::bigint)) as complete
           from h`,
          [from.snapshot, from.snapshot, from.snapshot, from.snapshot],
        );
        if (!head.complete) return null;
        // The transactions the copy's snapshot did not see, exactly (two ranges of the xid index).
        const rows = await tx.execute<{ store_id: number | null }[]>(
          `select distinct store_id from store_reach_changes
           where xid >= ? or xid = any(?::bigint[]) limit ${CATCH_UP_MAX_STORES + 1}`,
          [head.xmax, head.xip],
        );
        if (rows.length > CATCH_UP_MAX_STORES || rows.some((r) => r.store_id === null)) return null;
        const ids = rows.map((r) => r.store_id!);
        const stores = new Map((ids.length ? await readReachStores(tx, ids) : []).map((s) => [s.id, s]));
        const changed = new Map(from.changed);
        for (const id of ids) changed.set(id, stores.get(id) ?? null);
        return { version: head.version, snapshot: head.snapshot, changed };
      },
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
    );
  } catch (error) {
    reachLoads.failedCatchUps++;
    holder.catchUpFailedAt = Date.now();
    throw error;
  }
  holder.catchUpFailedAt = undefined;
  if (!read) return null;
  // Indexed after the commit (the transaction holds a snapshot back from vacuum meanwhile).
  const { version, snapshot, changed } = read;
  const index = changed.size === 0 && from.base.version === version ? from.base : new PatchedReachIndex(from.base, changed, version);
  const copy: Copy = { index, snapshot, takenAt: Date.now(), base: from.base, changed };
  reachLoads.catchUps++;
  adopt(holder, copy);
  const recentlyFailed = holder.buildFailedAt !== undefined && Date.now() - holder.buildFailedAt < COMPACT_RETRY_MS;
  if (holder.copy === copy && copy.changed.size > COMPACT_PATCHED_STORES && !holder.building && !recentlyFailed) {
    holder.compacting = true;
    startBuild(em, holder).catch(() => undefined);
  }
  prune(em, holder);
  return holder.copy!;
}

/**
 * Deletes log rows older than LOG_KEEP (at most once a PRUNE_EVERY_MS per process), whole
 * transactions at a time in batches of about PRUNE_BATCH_ROWS rows, each batch in one
 * statement that also raises the horizon below which rows may be missing past the highest id
 * it deleted: a copy whose snapshot did not see a transaction below the horizon that may have
 * been pruned rebuilds (catchUp). Writes nothing when no row is old enough: a write to the
 * version row or the log moves the answer cache's generations of nearby and the home screen.
 */
function prune(em: EntityManager, holder: Holder): void {
  const now = Date.now();
  if (holder.prunedAt !== undefined && now - holder.prunedAt < PRUNE_EVERY_MS) return;
  holder.prunedAt = now;
  pruneBatches(em.fork()).then(
    () => reachLoads.prunes++,
    () => undefined, // pruned next time
  );
}

async function pruneBatches(em: EntityManager): Promise<void> {
  await forgetAnotherCluster(em);
  const old = `at < now() - interval '${LOG_KEEP}'`;
  for (;;) {
    const [{ due }] = await em.execute<{ due: boolean }[]>(`select exists (select 1 from store_reach_changes where ${old}) as due`);
    if (!due) return;
    // A transaction's rows share `at` and go in one statement (the horizon check counts on it).
    const [{ deleted }] = await em.execute<{ deleted: string }[]>(
      `with gone as (delete from store_reach_changes where xid in (
                       select xid from store_reach_changes where ${old} order by id limit ${PRUNE_BATCH_ROWS})
                     returning xid),
            horizon as (insert into store_reach_version (id, version, log_pruned_below)
                        select 1, 0, max(xid) + 1 from gone having count(*) > 0
                        on conflict (id) do update set log_pruned_below = greatest(store_reach_version.log_pruned_below, excluded.log_pruned_below))
       select count(*)::text as deleted from gone`,
    );
    reachLoads.pruned += Number(deleted);
    if (Number(deleted) < PRUNE_BATCH_ROWS) return;
  }
}

/** One past the latest transaction id this statement's snapshot saw (no id is assigned to the statement for it). */
const SNAPSHOT_XMAX_SQL = `pg_snapshot_xmax(pg_current_snapshot())::text::bigint`;

/**
 * After a restore into another cluster, the log and its horizon hold the old cluster's
 * transaction ids, above any of this one's: every catch-up would then find the log pruned past
 * its copy and rebuild, until this cluster's ids passed them (and the first prune would raise
 * the horizon to them). A row a statement sees is one committed before its snapshot (or its own
 * transaction's: this runs on a fork of its own, never inside a writing transaction), so its id
 * is below the snapshot's xmax: a visible row at or above it, or a horizon above it, comes from
 * elsewhere and describes writes the restored data already holds. They are forgotten and the
 * horizon set to that xmax (a copy read before it rebuilds once: the restore itself wrote
 * without triggers). The check is a read, and nothing is written without a finding: a write
 * here would move the answer cache's generations of nearby and the home screen. The write
 * locks the version row first, so another instance's prune commits its horizon before the
 * write's snapshot (seen, and below that xmax) or after it (greatest of the two), never between.
 * Instances running across the restore keep their copy of the old cluster: restart them.
 */
async function forgetAnotherCluster(em: EntityManager): Promise<void> {
  const [{ found }] = await em.execute<{ found: boolean }[]>(`select ${FROM_ANOTHER_CLUSTER_SQL} as found`);
  if (!found) return;
  await em.transactional(async (tx) => {
    await tx.execute(`select 1 from store_reach_version where id = 1 for update`);
    await tx.execute(
      `with here as (select ${SNAPSHOT_XMAX_SQL} as xmax),
            gone as (delete from store_reach_changes where xid >= (select xmax from here))
       update store_reach_version set log_pruned_below = (select xmax from here)
       where id = 1 and log_pruned_below > (select xmax from here)`,
    );
  });
  reachLoads.otherClusters++;
}

/** A visible log row or a horizon at or above the statement's xmax: another cluster's (forgetAnotherCluster). */
const FROM_ANOTHER_CLUSTER_SQL = `exists (select 1 from store_reach_changes where xid >= ${SNAPSHOT_XMAX_SQL})
  or coalesce((select log_pruned_below from store_reach_version where id = 1), 0) > ${SNAPSHOT_XMAX_SQL}`;

/** Whether the city is small enough to wait for its first index (a bounded count). */
async function fewStores(em: EntityManager): Promise<boolean> {
  const [row] = await em.execute<{ n: string }[]>(
    `select count(*) as n from (select 1 from stores limit ${WAIT_FOR_REBUILD_STORES + 1}) s`,
  );
  return Number(row.n) <= WAIT_FOR_REBUILD_STORES;
}

/**
 * Reads every active store's reach data at one snapshot, with the version and the snapshot it
 * was read at, and indexes it after the commit. The read is a bulk read, not a request: it may run past the
 * requests' statement timeout (about 10 s at 1 000 000 stores), and the parsing and indexing
 * (tens of seconds at that size) happen outside the transaction, which would otherwise sit
 * idle past the idle-in-transaction timeout and hold a snapshot back from vacuum meanwhile.
 */
async function buildCopy(em: EntityManager): Promise<Copy> {
  const takenAt = Date.now();
  const { version, snapshot, columns } = await em.transactional(
    async (tx) => {
      await tx.execute(`set local statement_timeout = ${BUILD_STATEMENT_TIMEOUT_MS}`);
      const { version, snapshot } = await currentVersion(tx);
      return { version, snapshot, columns: await readReachColumns(tx) };
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
  const base = new ReachIndex(columns, version);
  reachLoads.builds++;
  return { index: base, snapshot, takenAt, base, changed: new Map() };
}

/**
 * readReachRows' rows as arrays (pg's rowMode 'array': no object per row), fetched from a cursor
 * in batches (in the caller's repeatable-read transaction: one snapshot) and parsed straight
 * into the index's columns, sized by a count in that snapshot. A million ReachStore objects,
 * with the lists and spread copies parsing made of them, took most of the build's time and
 * gigabytes of heap at 1 000 000 stores; one result of a million arrays still left ~150 MB
 * of pages committed after the build at 100 000 (docs/perf/2026-11-23-nearby.md "The reach index's
 * start-up at 1 000 000 stores").
 */
async function readReachColumns(em: EntityManager): Promise<ReachColumns> {
  const raw = (sql: string) => em.getKnex().raw(sql).options({ rowMode: 'array' }).transacting(em.getTransactionContext()!);
  const [{ n }] = await em.execute<{ n: number }[]>(`select count(*)::int as n from stores s where ${REACH_ROWS_WHERE}`);
  const c = emptyColumns(n);
  const zoneOf = new Map<string, number>();
  const open: number[] = [];
  const offers: number[] = [];
  // Planned for all its rows, as the statement alone is (not for the first tenth, a cursor's default).
  await em.execute('set local cursor_tuple_fraction = 1');
  await raw(`declare reach_rows no scroll cursor for ${REACH_ROWS_SQL}`);
  let i = 0;
  for (;;) {
    const { rows } = (await raw(`fetch forward ${READ_BATCH_ROWS} from reach_rows`)) as { rows: unknown[][] };
    if (i + rows.length > n) throw new Error('reach index: more stores than counted in the same snapshot');
    for (const row of rows) {
      const r = row as [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        boolean,
        number,
        number,
        number | null,
        string,
        string | null,
        string | null,
      ];
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
      i++;
    }
    if (rows.length < READ_BATCH_ROWS) break;
  }
  await em.execute('close reach_rows');
  if (i !== n) throw new Error('reach index: fewer stores than counted in the same snapshot');
  c.open = Int32Array.from(open);
  c.offers = Float64Array.from(offers);
  return c;
}

/** Rows per fetch of the build's cursor (a few MB of row arrays at a time). */
const READ_BATCH_ROWS = 20_000;

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

/** Every active store's reach data (of the stores `ids` only, when given): PostgreSQL's own cube coordinates and reach chords, hours and offers. */
export async function readReachStores(em: EntityManager, ids?: number[]): Promise<ReachStore[]> {
  return (await readReachRows(em, ids)).map(reachStore);
}

function reachStore({ hours, windows, ...s }: ReachRow): ReachStore {
  return { ...s, open: openPeriods(parseHours(hours)), offers: parseNumbers(windows) };
}

async function readReachRows(em: EntityManager, ids?: number[]): Promise<ReachRow[]> {
  if (!ids) return em.execute<ReachRow[]>(REACH_ROWS_SQL);
  return em.execute<ReachRow[]>(reachRowsSql(ids));
}

/** The stores the index holds. */
const REACH_ROWS_WHERE = 's.is_active and s.earth is not null';

/**
 * Every active store's reach data, in the order of ReachRow's fields (readReachColumns reads
 * them by position). The reach triggers watch exactly the columns it reads: test/reach-triggers.test.ts
 * compares them through PostgreSQL's own view of this statement.
 */
export const REACH_ROWS_SQL = reachRowsSql();

/**
 * The reach rows of every active store, or of those of `ids` (their hours and offers only).
 * The columns it reads are what the reach triggers watch (READ in
 * Migration20261125174500_reach_update_statements; a test holds the two together).
 */
function reachRowsSql(ids?: number[]): string {
  // Integers from the change log, inlined (one list, used three times).
  const list = ids && `'{${ids.map((id) => Math.trunc(Number(id))).join(',')}}'::int[]`;
  const of = (column: string) => (list ? `${column} = any(${list})` : 'true');
  return `with h as (
       select store_id, string_agg(concat_ws(',', day_of_week, ceil(extract(epoch from opens_at)), ceil(extract(epoch from closes_at)),
                                             (closes_at <= opens_at)::int), ';') as hours
       from store_opening_hours where ${of('store_id')} group by store_id),
     o as (
       select store_id, string_agg(concat_ws(',', coalesce(extract(epoch from starts_at) * 1000, '-Infinity'),
                                             coalesce(extract(epoch from ends_at) * 1000, 'Infinity')), ';') as windows
       from offers where store_id is not null and ${of('store_id')} group by store_id)
     select s.id, cube_ll_coord(s.earth, 1) as x, cube_ll_coord(s.earth, 2) as y, cube_ll_coord(s.earth, 3) as z,
            2 * earth() * sin(s.delivery_radius_km * 1000 / (2 * earth())) as reach,
            s.latitude as lat, s.longitude as lng, s.rating, s.rating_count as "ratingCount",
            s.free_delivery as "freeDelivery", case when s.free_delivery then 0 else s.delivery_price_cents end as fee,
            s.delivery_time as "deliveryTime", s.category_id as "categoryId", s.timezone, h.hours, o.windows
     from stores s left join h on h.store_id = s.id left join o on o.store_id = s.id
     where ${REACH_ROWS_WHERE} and ${of('s.id')}`;
}

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
