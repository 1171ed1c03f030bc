/**
 * A micro-cache of the public REST reads' answers (the rows marked `cache: true`): an answer is
 * kept, by request (the adapter's key: row, variables, viewer), for the rest of the second it was
 * computed in, and identical requests in flight share one computation. Nothing invalidates an
 * entry: a write (through this instance or another) is seen within a second, which is how long
 * an entry lives. "The second" is that of both clocks: the service's `clock` (is_open; tests fix
 * it) and the system's (PostgreSQL's now(): offers' and ads' windows); in production they are one.
 * When it passes, every entry is dropped at once, so memory holds one second's answers at most,
 * within the configured bounds.
 */
import { Clock } from '../common/clock';

export interface AnswerCacheLimits {
  maxEntries: number;
  /** Keys and bodies together, counted as JavaScript strings hold them (2 bytes a character at most). */
  maxBytes: number;
}

export class AnswerCache {
  /** Bodies by key, all of `stamp`; in insertion order, the oldest first. */
  private readonly entries = new Map<string, string>();
  private readonly flights = new Map<string, { stamp: string; body: Promise<string> }>();
  private stamp = '';
  private bytes = 0;

  constructor(
    private readonly limits: AnswerCacheLimits,
    private readonly clock: Clock,
  ) {}

  /**
   * The body for `key`: the stored one, the one an identical request of the same second is
   * computing, or `compute()`'s. Only bodies `compute` resolves are stored (the adapter sends
   * errors, so non-200 answers never reach here); its rejection reaches the requests that waited
   * for it and nothing is stored.
   */
  async answer(key: string, compute: () => Promise<string>): Promise<string> {
    const stamp = this.currentStamp();
    if (stamp !== this.stamp) this.reset(stamp);
    const stored = this.entries.get(key);
    if (stored !== undefined) return stored;
    const flight = this.flights.get(key);
    if (flight?.stamp === stamp) return flight.body;
    const mine = { stamp, body: compute() };
    this.flights.set(key, mine);
    try {
      const body = await mine.body;
      // Kept only if it was computed within one second: it is then as fresh as any entry.
      if (this.currentStamp() === stamp) this.keep(key, body);
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
    return `${Math.floor(this.clock.now().getTime() / 1000)}:${Math.floor(Date.now() / 1000)}`;
  }

  private reset(stamp: string): void {
    this.entries.clear();
    this.bytes = 0;
    this.stamp = stamp;
  }

  private keep(key: string, body: string): void {
    const size = 2 * (key.length + body.length);
    if (size > this.limits.maxBytes || this.entries.has(key)) return;
    // Full: the oldest entries make room (a burst of distinct keys cannot lock the hot ones out).
    for (const [oldKey, oldBody] of this.entries) {
      if (this.entries.size < this.limits.maxEntries && this.bytes + size <= this.limits.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= 2 * (oldKey.length + oldBody.length);
    }
    this.entries.set(key, body);
    this.bytes += size;
  }
}
