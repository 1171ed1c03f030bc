/**
 * PrimedLoader (src/common/batch-loader.ts) answers without a promise exactly what `load` would
 * answer: DataLoader keeps the first thing a key was given (a loaded value, a primed value, a
 * primed error or promise) and ignores later primes, so `primed` must too.
 */
import { PrimedLoader } from '../src/common/batch-loader';

const loader = () => new PrimedLoader<number, string>(async (keys) => keys.map((k) => `loaded ${k}`));
const answer = (l: PrimedLoader<number, string>, key: number) => l.load(key).catch((e: Error) => `rejected ${e.message}`);

describe('PrimedLoader', () => {
  it('answers a primed value, and a loaded key keeps its loaded value', async () => {
    const l = loader();
    l.prime(1, 'primed');
    expect(l.primed(1)).toBe('primed');
    expect(await l.load(1)).toBe('primed');
    await l.load(2);
    l.prime(2, 'late');
    expect(l.primed(2)).toBeUndefined();
    expect(await l.load(2)).toBe('loaded 2');
  });

  it('never answers a value primed after an error or a promise (DataLoader ignores it)', async () => {
    const l = loader();
    l.prime(1, new Error('boom'));
    l.prime(1, 'primed');
    expect([l.primed(1), await answer(l, 1)]).toEqual([undefined, 'rejected boom']);
    l.prime(2, Promise.resolve('from a promise'));
    l.prime(2, 'primed');
    expect([l.primed(2), await answer(l, 2)]).toEqual([undefined, 'from a promise']);
  });

  it('forgets a cleared key: primed again, it answers the new value', async () => {
    const l = loader();
    l.prime(1, 'old');
    l.clear(1).prime(1, 'new');
    expect([l.primed(1), await l.load(1)]).toEqual(['new', 'new']);
    l.prime(2, new Error('boom'));
    l.clearAll().prime(2, 'after');
    expect([l.primed(2), await l.load(2)]).toEqual(['after', 'after']);
  });
});
