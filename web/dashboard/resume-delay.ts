/**
 * How long a follower waits before subscribing again after its `failures`-th failure in a row:
 * `baseMs` doubling per failure up to `maxMs`, each wait drawn between half and all of that, and
 * never sooner than the service's `retryAfter` (seconds; drawn up to half above it), so followers
 * refused together (a busy instance answers many at once) do not all come back in the same instant.
 */
export function resumeDelay(failures: number, bounds: { baseMs: number; maxMs: number }, retryAfterSeconds?: number): number {
  const backoff = Math.min(bounds.maxMs, bounds.baseMs * 2 ** Math.max(0, failures - 1));
  const jittered = backoff / 2 + (Math.random() * backoff) / 2;
  // Never sooner than the service asked: its retryAfter is a floor, the jitter goes above it.
  const asked = (retryAfterSeconds ?? 0) * 1000;
  return Math.round(Math.max(jittered, asked + (Math.random() * asked) / 2));
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
