/**
 * How long a follower waits before subscribing again after its `failures`-th failure in a row:
 * the service's `retryAfter` (seconds) when it gave one, else `baseMs` doubling per failure up to
 * `maxMs`. Each wait is drawn between half and all of that, so followers refused together (a busy
 * instance answers many at once) do not all come back in the same instant.
 */
export function resumeDelay(failures: number, bounds: { baseMs: number; maxMs: number }, retryAfterSeconds?: number): number {
  const backoff = Math.min(bounds.maxMs, bounds.baseMs * 2 ** Math.max(0, failures - 1));
  const wait = Math.max(backoff, (retryAfterSeconds ?? 0) * 1000);
  return Math.round(wait / 2 + (Math.random() * wait) / 2);
}

/** The `retryAfter` a GraphQL error list carries (UNAVAILABLE, RATE_LIMITED), if any. */
export function retryAfterOf(errors: unknown): number | undefined {
  if (!Array.isArray(errors)) return undefined;
  for (const e of errors as { extensions?: { retryAfter?: unknown } }[]) {
    const seconds = e?.extensions?.retryAfter;
    if (typeof seconds === 'number' && seconds > 0) return seconds;
  }
  return undefined;
}
