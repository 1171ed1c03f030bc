import { resumeDelay, retryAfterOf } from '../web/dashboard/resume-delay';

/** The live views' (and the peak simulator's) wait before subscribing again. */
describe('resumeDelay', () => {
  const bounds = { baseMs: 1000, maxMs: 15_000 };
  const draws = (failures: number, retryAfter?: number) => Array.from({ length: 500 }, () => resumeDelay(failures, bounds, retryAfter));

  it('doubles per failure in a row up to the bound, each wait drawn between half and all of it', () => {
    for (const [failures, full] of [
      [1, 1000],
      [2, 2000],
      [4, 8000],
      [10, 15_000],
    ]) {
      const waits = draws(failures);
      expect(Math.min(...waits)).toBeGreaterThanOrEqual(full / 2);
      expect(Math.max(...waits)).toBeLessThanOrEqual(full);
      // Spread, so followers refused together do not return together.
      expect(new Set(waits).size).toBeGreaterThan(50);
    }
  });

  it("waits at least the service's retryAfter when it is longer than the backoff", () => {
    const waits = draws(1, 4);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(4000);
    expect(Math.max(...waits)).toBeLessThanOrEqual(6000);
    expect(new Set(waits).size).toBeGreaterThan(50);
  });
});

describe('retryAfterOf', () => {
  it('reads retryAfter from a GraphQL error list, and nothing from anything else', () => {
    expect(retryAfterOf([{ message: 'busy', extensions: { code: 'UNAVAILABLE', retryAfter: 2 } }])).toBe(2);
    expect(retryAfterOf([{ message: 'not found', extensions: { code: 'NOT_FOUND' } }])).toBeUndefined();
    expect(retryAfterOf({ code: 1006 })).toBeUndefined();
    expect(retryAfterOf([{ extensions: { retryAfter: 'soon' } }])).toBeUndefined();
  });
});
