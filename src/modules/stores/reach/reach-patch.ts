/**
 * A copy of the reach index caught up with the database without rebuilding it: the copy built
 * last (`base`) with the stores changed since (`changed`: each one's row now, null when the
 * index no longer holds it: inactive, no position, deleted) in a small index of their own
 * (`patch`); base's rows of those stores are left out of every answer. A store edit costs a
 * read of that store's row, not of the city (docs/decisions.md "Nearby: the reach index under store
 * edits"). reach-loader.ts builds these; no database access here.
 */
import { ReachAnswers, ReachIndex, ReachPage, ReachQuery, ReachSort, ReachStore } from './reach-index';

/** Pages ending past this many stores (with the changed ones) are left to SQL while a patch is in place. */
const PATCHED_PAGE_MAX = 2000;

export class PatchedReachIndex implements ReachAnswers {
  readonly size: number;
  readonly zones: readonly string[];
  private readonly patch: ReachIndex;
  private readonly ids: number[];

  constructor(
    readonly base: ReachIndex,
    readonly changed: ReadonlyMap<number, ReachStore | null>,
    readonly version: string,
  ) {
    const rows = [...changed.values()].filter((s): s is ReachStore => s !== null);
    this.patch = new ReachIndex(rows, version);
    this.ids = [...changed.keys()];
    this.size = base.size - this.ids.filter((id) => base.holds(id)).length + rows.length;
    this.zones = [...new Set([...base.zones, ...this.patch.zones])];
  }

  count(q: ReachQuery): number | null {
    if (this.ids.length === 0) return this.base.count(q); // only the version moved
    const gone = this.base.countAmong(q, this.ids);
    const all = gone === null ? null : this.base.count(q);
    const added = all === null ? null : this.patch.count(q);
    return added === null ? null : all! - gone! + added;
  }

  /**
   * The matches' ids when at most `atMost` match: base's (allowed as many more as stores
   * changed, whose old rows it may still count) less the changed stores, and the patch's.
   */
  matchingIds(q: ReachQuery, atMost: number): number[] | null {
    if (this.ids.length === 0) return this.base.matchingIds(q, atMost);
    const fromBase = this.base.matchingIds(q, atMost + this.ids.length);
    const fromPatch = fromBase && this.patch.matchingIds(q, atMost);
    if (!fromBase || !fromPatch) return null;
    const ids = fromBase.filter((id) => !this.changed.has(id)).concat(fromPatch);
    return ids.length > atMost ? null : ids;
  }

  /**
   * The page's candidates: the first offset + limit of the patch, and the first
   * offset + limit + g of base, g being how many of base's rows of changed stores match, less
   * those stores. A store of the merged page ranks at most g places lower in base (only those
   * rows can rank before it there and not here), so both lists hold every store of the first
   * offset + limit, and PostgreSQL's exact sort of them, skipping `offset`, is the page.
   */
  page(q: ReachQuery, sort: ReachSort, offset: number, limit: number): ReachPage | null {
    if (this.ids.length === 0) return this.base.page(q, sort, offset, limit);
    const gone = this.base.countAmong(q, this.ids);
    if (gone === null || offset + limit + gone > PATCHED_PAGE_MAX) return null;
    const fromPatch = this.patch.page(q, sort, 0, offset + limit);
    const fromBase = fromPatch && this.base.page(q, sort, 0, offset + limit + gone);
    if (!fromPatch || !fromBase) return null;
    const total = fromBase.total - gone + fromPatch.total;
    if (offset >= total) return { total, candidates: [], skip: 0 };
    const candidates = fromBase.candidates.filter((id) => !this.changed.has(id)).concat(fromPatch.candidates);
    return { total, candidates, skip: offset };
  }

  openNow(ids: readonly number[], openAt: Map<string, number>): (boolean | null)[] {
    const fromPatch = this.patch.openNow(ids, openAt);
    const fromBase = this.base.openNow(ids, openAt);
    return ids.map((id, k) => (this.changed.has(id) ? fromPatch[k] : fromBase[k]));
  }
}
