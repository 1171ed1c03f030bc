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
 * - the database: an entry is valid only while this process's write generation
 *   (db/entity-manager.ts: bumped after every committed write through the ORM) is unchanged.
 *   Writes of other instances and scripts are seen within the second.
 *
 * All entries share one stamp (generation and seconds): when the stamp moves, every entry is
 * dropped at once, so memory holds one second's answers at most, within the configured bounds.
 */
import { Clock } from '../common/clock';
import { writeGeneration } from '../db/entity-manager';

export interface AnswerCacheLimits {
  maxEntries: number;
  /** Keys and bodies together, counted as JavaScript strings hold them (2 bytes a character at most). */
  maxBytes: number;
}

/** A computation in progress: identical requests of the same stamp wait for it. */
interface Flight {
  stamp: string;
  body: Promise<string>;
}

export class AnswerCache {
  /** Answers (the body as sent) by key, all of `stamp`; in insertion order, the oldest first. */
  private readonly entries = new Map<string, string>();
  private stamp = '';
  private bytes = 0;
  private readonly flights = new Map<string, Flight>();

  constructor(
    private readonly limits: AnswerCacheLimits,
    private readonly clock: Clock,
  ) {}

  /**
   * The body for `key`: the stored one, the one an identical request of the same stamp is
   * computing, or `compute()`'s. Only bodies `compute` resolves are stored (the adapter sends
   * errors, so non-200 answers never reach here); its rejection reaches the requests that
   * waited for it and nothing is stored.
   */
  async answer(key: string, compute: () => Promise<string>): Promise<string> {
    const stamp = this.currentStamp();
    if (stamp !== this.stamp) this.reset(stamp);
    const stored = this.entries.get(key);
    if (stored !== undefined) return stored;
    // A flight of an older stamp may answer what was true before a write this request saw
    // committed (or in an earlier second): it is not joined, and this request's flight replaces it.
    const flight = this.flights.get(key);
    if (flight?.stamp === stamp) return flight.body;
    const mine: Flight = { stamp, body: compute() };
    this.flights.set(key, mine);
    try {
      const body = await mine.body;
      // Stored only if no write committed and no second passed while it was computed: it is
      // then what a request starting now would compute.
      if (this.currentStamp() === stamp) this.keep(stamp, key, body);
      return body;
    } finally {
      if (this.flights.get(key) === mine) this.flights.delete(key);
    }
  }

  /** Entries held now (tests and the bounds). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private currentStamp(): string {
    const serviceSecond = Math.floor(this.clock.now().getTime() / 1000);
    const systemSecond = Math.floor(Date.now() / 1000);
    return `${writeGeneration()}:${serviceSecond}:${systemSecond}`;
  }

  private reset(stamp: string): void {
    this.entries.clear();
    this.bytes = 0;
    this.stamp = stamp;
  }

  private keep(stamp: string, key: string, body: string): void {
    if (stamp !== this.stamp) this.reset(stamp);
    const size = 2 * (key.length + body.length);
    if (size > this.limits.maxBytes || this.entries.has(key)) return;
    // Full: the oldest entries make room (a burst of distinct keys cannot lock the hot ones
    // out for the rest of the second; they come back at their next request).
    for (const [oldKey, oldBody] of this.entries) {
      if (this.entries.size < this.limits.maxEntries && this.bytes + size <= this.limits.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= 2 * (oldKey.length + oldBody.length);
    }
    this.entries.set(key, body);
    this.bytes += size;
  }
}
