/**
 * Counting structures of the reach index (reach-index.ts): how many stores of a run of its
 * positions pass one filter, without testing them one by one. A cell's stores that deliver to
 * a point for certain are such a run (the cell's stores of the largest reach), so a filtered
 * total costs a few binary searches per cell instead of a test per store in reach.
 * docs/perf/2026-11-23-nearby.md "Nearby's CPU per request".
 */

/** Running counts of a 0/1 column: `at[i]` stores before position i have it. */
export function prefixCounts(n: number, has: (i: number) => boolean, into?: Int32Array): Int32Array {
  const at = into ?? new Int32Array(n + 1);
  for (let i = 0; i < n; i++) at[i + 1] = at[i] + (has(i) ? 1 : 0);
  return at;
}

/** For each value, its positions in ascending order (a category's stores). */
export function positionsByValue(values: Int32Array): Map<number, Int32Array> {
  const lists = new Map<number, number[]>();
  values.forEach((v, i) => {
    const list = lists.get(v);
    if (list) list.push(i);
    else lists.set(v, [i]);
  });
  return new Map([...lists].map(([v, list]) => [v, Int32Array.from(list)]));
}

/** How many of the ascending `positions` fall in [from, to). */
export function countBetween(positions: Int32Array, from: number, to: number): number {
  return lowerBoundInt(positions, to) - lowerBoundInt(positions, from);
}

/** The first index whose value is at least `v` (values ascending). */
export function lowerBoundInt(values: Int32Array, v: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many of the ascending `values` are at most `v` (the interval of a sorted list of boundaries `v` is in). */
export function countAtMost(values: Float64Array, v: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The distinct values of `values` other than NaN, ascending. */
export function distinctSorted(values: ArrayLike<number>): Float64Array {
  const seen = new Set<number>();
  for (let i = 0; i < values.length; i++) if (!Number.isNaN(values[i])) seen.add(values[i]);
  return Float64Array.from(seen).sort();
}

const popcount = (v: number): number => {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
};

/**
 * A wavelet matrix of small non-negative integers (ranks of a column): how many positions of a
 * run [from, to) hold a value of at least x, in one rank query per bit of the values
 * (log₂ of the number of distinct values), for n/4 bytes per bit.
 */
export class WaveletMatrix {
  private readonly bits: number;
  private readonly words: Uint32Array[] = [];
  /** Ones before each 32-position word, per level. */
  private readonly ones: Int32Array[] = [];
  private readonly zeros: number[] = [];

  constructor(values: Int32Array, maxValue: number) {
    const n = values.length;
    this.bits = Math.max(1, Math.ceil(Math.log2(maxValue + 1)));
    let current = Int32Array.from(values);
    for (let level = 0; level < this.bits; level++) {
      const bit = this.bits - 1 - level;
      const words = new Uint32Array((n >>> 5) + 1);
      for (let i = 0; i < n; i++) if ((current[i] >>> bit) & 1) words[i >>> 5] |= 1 << (i & 31);
      const ones = new Int32Array(words.length + 1);
      for (let w = 0; w < words.length; w++) ones[w + 1] = ones[w] + popcount(words[w]);
      this.words.push(words);
      this.ones.push(ones);
      const zeros = n - ones[words.length];
      this.zeros.push(zeros);
      // The next level: this level's zeros, then its ones, each in their order (typed arrays: no lists of a million numbers).
      const next = new Int32Array(n);
      let z = 0;
      let o = zeros;
      for (let i = 0; i < n; i++) next[(current[i] >>> bit) & 1 ? o++ : z++] = current[i];
      current = next;
    }
  }

  get bytes(): number {
    return this.words.reduce((sum, w, k) => sum + w.byteLength + this.ones[k].byteLength, 0);
  }

  /** Ones among the first i positions of a level. */
  private rank1(level: number, i: number): number {
    const w = i >>> 5;
    return this.ones[level][w] + popcount(this.words[level][w] & ((1 << (i & 31)) - 1));
  }

  /** How many positions in [from, to) hold a value of at least x. */
  countAtLeast(from: number, to: number, x: number): number {
    if (x <= 0) return to - from;
    if (x >= 2 ** this.bits) return 0;
    let less = 0;
    let a = from;
    let b = to;
    for (let level = 0; level < this.bits; level++) {
      const onesA = this.rank1(level, a);
      const onesB = this.rank1(level, b);
      if ((x >>> (this.bits - 1 - level)) & 1) {
        less += b - onesB - (a - onesA);
        a = this.zeros[level] + onesA;
        b = this.zeros[level] + onesB;
      } else {
        a -= onesA;
        b -= onesB;
      }
    }
    return to - from - less;
  }
}
