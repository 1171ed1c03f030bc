/**
 * A micro-cache of the public REST reads' answers (issue 9: "short-lived caches keyed by what
 * the answer depends on, invalidated by writes"; docs/decisions.md "City scale: the answer
 * cache"). Hot keys (the same store, search term, point, page; ads) are served from memory
 * for the rest of the second they were computed in, and concurrent identical requests share
 * one computation.
 *
 * What an answer depends on, and how each part is held:
 * - the route and its variables, and the viewer: the key (the adapter builds it);
 * - the clocks: the service's `clock` (is_open) and PostgreSQL's now() (offers' and ads'
 *   windows), which is the system clock: an entry is valid only within the whole second of
 *   both in which it was computed. In production they are one clock; tests fix the service's.
 * - the database: an entry is valid only while the write generations of the tables its row
 *   reads (the row's `cache.reads`; db/table-generations.ts, moved by each committed write
 *   through this process's ORM to the tables it wrote) are unchanged. Writes of other instances
 *   and scripts are seen within the second.
 *
 * All entries share the clocks' stamp: when a second passes, every entry is dropped at once, so
 * memory holds one second's answers at most, within the configured bounds. Each entry also
 * holds its tables' generation; a write to them makes it stale, and the next request replaces it.
 */
import { Clock } from '../common/clock';
import { TableSet } from '../db/table-generations';

export interface AnswerCacheLimits {
  maxEntries: number;
  /** Keys and bodies together, counted as JavaScript strings hold them (2 bytes a character at most). */
  maxBytes: number;
}

/** An answer (the body as sent) and the generation of its row's tables when its computation started. */
interface Entry {
  body: string;
  generation: number;
}

/** A computation in progress: identical requests of the same seconds and generation wait for it. */
interface Flight {
  stamp: string;
  generation: number;
  body: Promise<string>;
}

export class AnswerCache {
  /** Answers by key, all of `stamp`; in insertion order, the oldest first. */
  private readonly entries = new Map<string, Entry>();
  /** The whole seconds of both clocks. */
  private stamp = '';
  private bytes = 0;
  private readonly flights = new Map<string, Flight>();
  /** Each row's declared tables (the route table's array) as a generation counter. */
  private readonly tableSets = new WeakMap<readonly string[], TableSet>();

  constructor(
    private readonly limits: AnswerCacheLimits,
    private readonly clock: Clock,
  ) {}

  /**
   * The body for `key`, whose answer reads the tables `reads`: the stored one, the one an
   * identical request of the same stamp is computing, or `compute()`'s. Only bodies `compute`
   * resolves are stored (the adapter sends errors, so non-200 answers never reach here); its
   * rejection reaches the requests that waited for it and nothing is stored.
   */
  async answer(key: string, reads: readonly string[], compute: () => Promise<string>): Promise<string> {
    const stamp = this.currentStamp();
    if (stamp !== this.stamp) this.reset(stamp);
    const tables = this.tableSet(reads);
    const generation = tables.generation();
    const stored = this.entries.get(key);
    if (stored?.generation === generation) return stored.body;
    // A flight of an older stamp or generation may answer what was true before a write this
    // request saw committed (or in an earlier second): it is not joined, and this request's
    // flight replaces it.
    const flight = this.flights.get(key);
    if (flight?.stamp === stamp && flight.generation === generation) return flight.body;
    const mine: Flight = { stamp, generation, body: compute() };
    this.flights.set(key, mine);
    try {
      const body = await mine.body;
      // Stored only if no write to its tables committed and no second passed while it was
      // computed: it is then what a request starting now would compute.
      if (this.currentStamp() === stamp && tables.generation() === generation) this.keep(stamp, key, { body, generation });
      return body;
    } finally {
      if (this.flights.get(key) === mine) this.flights.delete(key);
    }
  }

  /** Entries held now (tests and the bounds). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private tableSet(reads: readonly string[]): TableSet {
    let set = this.tableSets.get(reads);
    if (!set) this.tableSets.set(reads, (set = new TableSet(reads)));
    return set;
  }

  private currentStamp(): string {
    const serviceSecond = Math.floor(this.clock.now().getTime() / 1000);
    const systemSecond = Math.floor(Date.now() / 1000);
    return `${serviceSecond}:${systemSecond}`;
  }

  private reset(stamp: string): void {
    this.entries.clear();
    this.bytes = 0;
    this.stamp = stamp;
  }

  private keep(stamp: string, key: string, entry: Entry): void {
    if (stamp !== this.stamp) this.reset(stamp);
    const size = 2 * (key.length + entry.body.length);
    if (size > this.limits.maxBytes) return;
    // A stale entry (its tables written since) makes way for this one; a current one stays.
    const old = this.entries.get(key);
    if (old?.generation === entry.generation) return;
    if (old) {
      this.entries.delete(key);
      this.bytes -= 2 * (key.length + old.body.length);
    }
    // Full: the oldest entries make room (a burst of distinct keys cannot lock the hot ones
    // out for the rest of the second; they come back at their next request).
    for (const [oldKey, { body: oldBody }] of this.entries) {
      if (this.entries.size < this.limits.maxEntries && this.bytes + size <= this.limits.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= 2 * (oldKey.length + oldBody.length);
    }
    this.entries.set(key, entry);
    this.bytes += size;
  }
}
