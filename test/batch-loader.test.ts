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

describe('PrimedLoader, values handed to DataLoader only when loaded', () => {
  it('keeps the first value primed, before and after a load', async () => {
    const l = loader();
    l.prime(1, 'first').prime(1, 'second');
    expect([l.primed(1), await l.load(1)]).toEqual(['first', 'first']);
    l.prime(1, 'third');
    expect([l.primed(1), await l.load(1), await l.loadMany([1, 3])]).toEqual(['first', 'first', ['first', 'loaded 3']]);
    // An error or a promise after a value is ignored, as DataLoader ignores it.
    l.prime(4, 'value').prime(4, new Error('boom')).prime(4, Promise.resolve('promise'));
    expect([l.primed(4), await answer(l, 4)]).toEqual(['value', 'value']);
  });

  it('a primed value that is never loaded is not a load: the batch never runs for it', async () => {
    const asked: number[][] = [];
    const l = new PrimedLoader<number, string>(async (keys) => (asked.push([...keys]), keys.map((k) => `loaded ${k}`)));
    for (let k = 0; k < 5; k++) l.prime(k, `primed ${k}`);
    expect(await l.loadMany([0, 2, 9])).toEqual(['primed 0', 'primed 2', 'loaded 9']);
    expect(asked).toEqual([[9]]);
  });
});
