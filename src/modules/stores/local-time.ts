/**
 * "Open now" is decided in each store's own time zone with the rules of Node's ICU (Intl):
 * one maintained source, the same on PostgreSQL and on the embedded database (whose tz
 * tables put Africa/Casablanca at UTC+0, an hour wrong outside Ramadan since 2018).
 *
 * Node turns "now" into each zone's wall-clock time and hands SQL the map
 * `{ "Africa/Casablanca": "2026-11-23T08:11:00", ... }`; the one SQL rule,
 * `store_open_at(store_id, local_times)` (a one-row table function PostgreSQL inlines; the scalar
 * `store_is_open` reads it), compares a store's hours with its zone's entry. The
 * map is exact at that instant, so a DST change or Ramadan needs no refresh and no table.
 * It covers every zone a store uses: a loose index scan of `stores.timezone` (a statement of
 * a few index probes, once per request).
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { batchLoader } from '../../common/batch-loader';
import { Context } from '../../context';

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterOf(zone: string): Intl.DateTimeFormat | null {
  if (!formatters.has(zone)) {
    try {
      const options: Intl.DateTimeFormatOptions = {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      };
      formatters.set(zone, new Intl.DateTimeFormat('en-US', options));
    } catch {
      formatters.set(zone, null); // not a zone ICU knows (writes refuse those): its stores read as closed
    }
  }
  return formatters.get(zone)!;
}

/** Each zone's last answer: the second it was for and the text (requests of one second reuse it). */
const lastClock = new Map<string, { second: number; local: string | null }>();

/**
 * The wall-clock time in `zone` at `at`, as `YYYY-MM-DDTHH:MM:SS`; null for an unknown zone.
 * It depends only on the whole second (the format has no fraction), so the last answer per
 * zone is kept: ICU's formatToParts showed in the profiles of every request that tells "open now".
 */
export function wallClock(zone: string, at: Date): string | null {
  const second = Math.floor(at.getTime() / 1000);
  const last = lastClock.get(zone);
  if (last?.second === second) return last.local;
  const formatter = formatterOf(zone);
  let local: string | null = null;
  if (formatter) {
    const part = Object.fromEntries(formatter.formatToParts(at).map((p) => [p.type, p.value]));
    local = `${part.year}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}`;
  }
  lastClock.set(zone, { second, local });
  return local;
}

/** Every distinct zone of the stores, walking the timezone index (a few probes, not a scan). */
async function zonesInUse(em: EntityManager): Promise<string[]> {
  const rows = await em.execute<{ zone: string }[]>(
    `with recursive z(zone) as (
       (select timezone from stores order by timezone limit 1)
       union all
       select (select s.timezone from stores s where s.timezone > z.zone order by s.timezone limit 1) from z where z.zone is not null)
     select zone from z where zone is not null`,
  );
  return rows.map((r) => r.zone);
}

/** zone -> wall-clock time at `at` for each of `zones` (JSON text): the `local_times` argument of store_is_open. */
export function localTimesOf(zones: Iterable<string>, at: Date): string {
  const times: Record<string, string> = {};
  for (const zone of zones) {
    const local = wallClock(zone, at);
    if (local) times[zone] = local;
  }
  return JSON.stringify(times);
}

/** zone -> wall-clock time at `at`, for every zone in use: the `local_times` argument of store_is_open. */
export async function localTimesAt(em: EntityManager, at: Date): Promise<string> {
  return localTimesOf(await zonesInUse(em), at);
}

/** The request's "now" at the service's clock, read once: every open-now answer of a request agrees. */
const requestNow = batchLoader<'now', Date, Context>((_em, keys, ctx) => {
  const now = ctx.services.clock.now();
  return Promise.resolve(keys.map(() => now));
});
export const requestInstant = (ctx: Context): Promise<Date> => requestNow(ctx).load('now');

/**
 * requestInstant without waiting, for the first reader of a request (nearby's resolver): the
 * request's instant is fixed now at the service's clock, unless it was fixed already (then that
 * one). Null while a `requestInstant` still waits for its batch: await that one instead. Spares
 * the loader's batch and a promise on the way in (docs/perf/2026-11-23-nearby.md "Nearby's cost over
 * its hand-written twin").
 */
export function requestInstantNow(ctx: Context): Date | null {
  const loader = requestNow(ctx);
  if (loader.primed('now') === undefined) loader.prime('now', ctx.services.clock.now());
  return loader.primed('now') ?? null;
}

const localTimesNow = batchLoader<'now', string, Context>(async (em, keys, ctx) => {
  const times = await localTimesAt(em, await requestInstant(ctx));
  return keys.map(() => times);
});

/** The request's `local_times` for every zone in use (JSON text), computed once per request at the service's clock. */
export const storeLocalTimes = (ctx: Context): Promise<string> => localTimesNow(ctx).load('now');

/**
 * The zones of the stores this process has met, so a statement that reads a store can decide
 * "open now" in the same round trip (store.loaders.ts `openNowSql`): its zone is not known
 * before the row is read, so the statement gets the wall-clock times of these zones, and a
 * store of a zone not among them yet is decided by the storeIsOpen loader (one statement
 * more, once per zone and process). Only zone names: it can make a read cost more, never an
 * answer differ. At most the zones ICU knows (writes refuse the others).
 */
const zonesMet = new Set<string>();

export function meetZone(zone: string): void {
  zonesMet.add(zone);
}

/**
 * The last map made for the zones met, by the whole second it is for: a wall-clock time to the
 * second depends only on the instant's whole second (every offset is whole seconds), so the
 * requests of one second share one map (an Intl format per zone was 1–2 % of a details request).
 */
let lastMap: { second: number; zones: number; times: string } | null = null;

/** The request's `local_times` for the zones met so far (JSON text). */
export async function metZonesLocalTimes(ctx: Context): Promise<string> {
  // Fixed without the loader's batch when nothing waits for one: the batch would also make the
  // request's fork (batchLoader hands it `ctx.em`), which a one-statement read does without.
  const at = requestInstantNow(ctx) ?? (await requestInstant(ctx));
  const second = Math.floor(at.getTime() / 1000);
  if (lastMap?.second !== second || lastMap.zones !== zonesMet.size)
    lastMap = { second, zones: zonesMet.size, times: localTimesOf(zonesMet, at) };
  return lastMap.times;
}
