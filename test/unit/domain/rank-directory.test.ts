import fc from 'fast-check';
import {
  applyKeyChanges,
  bucketOf,
  countBelowPrefix,
  emptyDirectory,
  locate,
  MAX_BUCKET,
  mergeSmallBuckets,
  splitBucket,
  TARGET_BUCKET,
  totalOf,
  type RankDirectory,
} from '../../../lambdas/shared/domain/rank-directory.js';
import { fcParameters } from '../../support/seed.js';

/** Fixed-width keys like the real ones: 4 base-36 digits, the first two are the histogram prefix. */
const keyOf = (n: number) => n.toString(36).padStart(4, '0');
const prefixOf = (key: string) => key.slice(0, 2);
const keys = (from: number, count: number) => Array.from({ length: count }, (_, i) => keyOf(from + i));

/** The directory's invariants (see the file's comment), checked against a recount of `sorted`. */
const expectConsistent = (directory: RankDirectory, sorted: readonly string[]) => {
  const { bounds, counts } = directory;
  expect(bounds[0]).toBe('');
  expect(bounds).toHaveLength(counts.length);
  for (let i = 1; i < bounds.length; i++) expect(bounds[i]! > bounds[i - 1]!).toBe(true);
  const recount = bounds.map((lower, i) => {
    const upper = bounds[i + 1];
    return sorted.filter((k) => k >= lower && (upper === undefined || k < upper)).length;
  });
  expect(counts).toEqual(recount);
  counts.slice(1).forEach((count) => expect(count).toBeGreaterThan(0));
  expect(totalOf(directory)).toBe(sorted.length);
  if (directory.histogram) {
    const histogram: Record<string, number> = {};
    for (const key of sorted) histogram[prefixOf(key)] = (histogram[prefixOf(key)] ?? 0) + 1;
    expect(directory.histogram).toEqual(histogram);
  }
};

/** Every position resolves to the bucket that holds the key at that position. */
const expectLocatable = (directory: RankDirectory, sorted: readonly string[]) => {
  const firstAtOrAbove = new Map<string, number>();
  for (const lower of directory.bounds) firstAtOrAbove.set(lower, sorted.filter((k) => k < lower).length);
  const wrong: number[] = [];
  for (let position = 0; position < sorted.length; position++) {
    const found = locate(directory, position);
    const key = sorted[position]!;
    const ok =
      key >= found.lower &&
      (found.upper === undefined || key < found.upper) &&
      found.offset === position - found.before &&
      found.offset < found.count &&
      firstAtOrAbove.get(found.lower) === found.before &&
      found.index === bucketOf(directory, key);
    if (!ok) wrong.push(position);
  }
  expect(wrong).toEqual([]);
  expect(() => locate(directory, sorted.length)).toThrow(RangeError);
};

/** What a writer does with a batch of changes: count, split what grew too big, merge. */
const applyBatch = (directory: RankDirectory, sortedAfter: readonly string[], inserted: string[], removed: string[]) => {
  const applied = applyKeyChanges(directory, { inserted, removed }, prefixOf);
  let next = applied.directory;
  for (const index of [...applied.oversized].reverse()) {
    const lower = next.bounds[index]!;
    const upper = next.bounds[index + 1];
    next = splitBucket(next, index, sortedAfter.filter((k) => k >= lower && (upper === undefined || k < upper)));
  }
  return { applied, merged: mergeSmallBuckets(next) };
};

describe('emptyDirectory and totalOf', () => {
  it.each([
    [true, { bounds: [''], counts: [0], histogram: {} }],
    [false, { bounds: [''], counts: [0] }],
  ])('with histogram %p', (withHistogram, expected) => {
    expect(emptyDirectory(withHistogram)).toEqual(expected);
    expect(totalOf(emptyDirectory(withHistogram))).toBe(0);
  });
});

describe('bucketOf', () => {
  const directory: RankDirectory = { bounds: ['', '0b', '0m'], counts: [3, 4, 5] };

  it.each([
    ['', 0],
    ['00zz', 0],
    ['0b', 1],
    ['0b00', 1],
    ['0lzz', 1],
    ['0m', 2],
    ['zzzz', 2],
  ])('%p is in bucket %p', (key, index) => {
    expect(bucketOf(directory, key)).toBe(index);
  });
});

describe('locate', () => {
  const directory: RankDirectory = { bounds: ['', '0b', '0m'], counts: [3, 4, 5] };

  it.each([
    [0, { index: 0, before: 0, count: 3, lower: '', upper: '0b', offset: 0 }],
    [2, { index: 0, before: 0, count: 3, lower: '', upper: '0b', offset: 2 }],
    [3, { index: 1, before: 3, count: 4, lower: '0b', upper: '0m', offset: 0 }],
    [6, { index: 1, before: 3, count: 4, lower: '0b', upper: '0m', offset: 3 }],
    [11, { index: 2, before: 7, count: 5, lower: '0m', upper: undefined, offset: 4 }],
  ])('position %p', (position, expected) => {
    expect(locate(directory, position)).toEqual(expected);
  });

  it('skips an empty first bucket', () => {
    expect(locate({ bounds: ['', '0b'], counts: [0, 2] }, 0)).toEqual({ index: 1, before: 0, count: 2, lower: '0b', upper: undefined, offset: 0 });
  });

  it.each([12, 100])('refuses position %p beyond the 12 keys', (position) => {
    expect(() => locate(directory, position)).toThrow('Position');
  });
});

describe('countBelowPrefix', () => {
  const directory: RankDirectory = { bounds: [''], counts: [9], histogram: { '00': 2, '03': 3, '0a': 4 } };

  it.each([
    ['00', 0],
    ['01', 2],
    ['03', 2],
    ['04', 5],
    ['0a', 5],
    ['zz', 9],
  ])('below %p: %p', (prefix, expected) => {
    expect(countBelowPrefix(directory, prefix)).toBe(expected);
  });

  it('is 0 without a histogram', () => {
    expect(countBelowPrefix({ bounds: [''], counts: [9] }, 'zz')).toBe(0);
  });
});

describe('applyKeyChanges', () => {
  it('moves counts and histogram entries, dropping prefixes that reach zero', () => {
    // Arrange
    const directory: RankDirectory = { bounds: ['', '0b'], counts: [2, 1], histogram: { '00': 1, '01': 1, '0b': 1 } };

    // Act
    const { directory: next, oversized } = applyKeyChanges(directory, { inserted: ['0c00', '0001'], removed: ['0100'] }, prefixOf);

    // Assert
    expect(next).toEqual({ bounds: ['', '0b'], counts: [2, 2], histogram: { '00': 2, '0b': 1, '0c': 1 } });
    expect(oversized).toEqual([]);
    expect(directory.counts).toEqual([2, 1]); // the input is not mutated
  });

  it('leaves the histogram alone without a prefix function', () => {
    const { directory } = applyKeyChanges({ bounds: [''], counts: [0], histogram: {} }, { inserted: ['0001'], removed: [] });
    expect(directory).toEqual({ bounds: [''], counts: [1], histogram: {} });
  });

  it('reports the buckets that grew past MAX_BUCKET', () => {
    // Arrange
    const directory: RankDirectory = { bounds: ['', keyOf(1000), keyOf(2000)], counts: [MAX_BUCKET, MAX_BUCKET - 1, MAX_BUCKET] };

    // Act
    const { oversized } = applyKeyChanges(directory, { inserted: [keyOf(5000), keyOf(1500), keyOf(1501)], removed: [] });

    // Assert
    expect(oversized).toEqual([1, 2]);
  });

  it('refuses to let a count go negative', () => {
    expect(() => applyKeyChanges({ bounds: ['', '0b'], counts: [1, 0] }, { inserted: [], removed: ['0c00'] })).toThrow('negative');
  });
});

describe('splitBucket', () => {
  it('cuts a bucket into parts of about TARGET_BUCKET keys, at its own keys', () => {
    // Arrange: 300 keys in the middle bucket -> ceil(300 / 128) = 3 parts of 100
    const middle = keys(1000, 300);
    const directory: RankDirectory = { bounds: ['', keyOf(1000), keyOf(2000)], counts: [5, 300, 7], histogram: { x: 1 } };

    // Act
    const split = splitBucket(directory, 1, middle);

    // Assert
    expect(split).toEqual({
      bounds: ['', keyOf(1000), keyOf(1100), keyOf(1200), keyOf(2000)],
      counts: [5, 100, 100, 100, 7],
      histogram: { x: 1 },
    });
  });

  it('keeps the empty lower bound when it splits the first bucket', () => {
    // 257 keys -> 3 parts: 86, 86, 85
    const split = splitBucket({ bounds: [''], counts: [257] }, 0, keys(10, 257));
    expect(split).toEqual({ bounds: ['', keyOf(96), keyOf(182)], counts: [86, 86, 85] });
  });

  it('refuses keys that do not match the bucket count', () => {
    expect(() => splitBucket({ bounds: [''], counts: [3] }, 0, keys(0, 2))).toThrow('do not match');
  });

  it('gives non-empty parts of at most MAX_BUCKET keys for any size', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_BUCKET + 1, max: 5000 }), (size) => {
        const bucket = keys(0, size);
        const split = splitBucket({ bounds: [''], counts: [size] }, 0, bucket);
        expectConsistent(split, bucket);
        split.counts.forEach((count) => expect(count).toBeLessThanOrEqual(MAX_BUCKET));
      }),
      fcParameters({ numRuns: 50 }),
    );
  });
});

describe('mergeSmallBuckets', () => {
  it.each<[string, RankDirectory, RankDirectory]>([
    ['folds empty buckets into their left neighbour', { bounds: ['', 'b', 'c', 'd'], counts: [200, 0, 150, 0] }, { bounds: ['', 'c'], counts: [200, 150] }],
    ['folds neighbours whose sum stays below TARGET_BUCKET', { bounds: ['', 'b', 'c'], counts: [60, 67, 1] }, { bounds: ['', 'c'], counts: [127, 1] }],
    ['keeps neighbours whose sum reaches TARGET_BUCKET', { bounds: ['', 'b'], counts: [64, 64] }, { bounds: ['', 'b'], counts: [64, 64] }],
    ['collapses an all-empty directory to one bucket', { bounds: ['', 'b'], counts: [0, 0] }, { bounds: [''], counts: [0] }],
    ['folds a small bucket into an empty first bucket', { bounds: ['', 'b', 'c'], counts: [0, 5, 200] }, { bounds: ['', 'c'], counts: [5, 200] }],
    ['keeps an empty first bucket before a big one', { bounds: ['', 'b', 'c'], counts: [0, 200, 5] }, { bounds: ['', 'b', 'c'], counts: [0, 200, 5] }],
  ])('%s', (_case, directory, expected) => {
    expect(mergeSmallBuckets(directory)).toEqual(expected);
  });

  it('keeps the histogram', () => {
    expect(mergeSmallBuckets({ bounds: ['', 'b'], counts: [1, 1], histogram: { a: 1, b: 1 } }).histogram).toEqual({ a: 1, b: 1 });
  });
});

describe('the directory against a brute-force sorted key set', () => {
  /** A batch: values to insert (duplicates and present keys dropped) and picks of present keys to remove. */
  const batch = fc.record({
    insert: fc.array(fc.integer({ min: 0, max: 36 ** 3 - 1 }), { maxLength: 450 }),
    remove: fc.array(fc.nat(), { maxLength: 200 }),
  });

  it('stays consistent through random inserts, removes, splits and merges', () => {
    fc.assert(
      fc.property(fc.array(batch, { minLength: 1, maxLength: 8 }), (batches) => {
        let directory = emptyDirectory(true);
        let present = new Set<string>();
        for (const { insert, remove } of batches) {
          const before = [...present];
          const removed = [...new Set(before.length === 0 ? [] : remove.map((pick) => before[pick % before.length]!))];
          const inserted = [...new Set(insert.map(keyOf))].filter((key) => !present.has(key));
          present = new Set([...before.filter((key) => !removed.includes(key)), ...inserted]);
          const sorted = [...present].sort();

          const { applied, merged } = applyBatch(directory, sorted, inserted, removed);

          // Counts against the unchanged bounds are exact, and the oversized list is exact.
          expectConsistent({ bounds: applied.directory.bounds, counts: applied.directory.counts }, sorted);
          expect(applied.oversized).toEqual(applied.directory.counts.flatMap((n, i) => (n > MAX_BUCKET ? [i] : [])));
          // After splitting and merging every invariant holds and no bucket is too big.
          expectConsistent(merged, sorted);
          merged.counts.forEach((count) => expect(count).toBeLessThanOrEqual(MAX_BUCKET));
          for (let i = 1; i < merged.counts.length; i++) {
            expect(merged.counts[i - 1]! + merged.counts[i]!).toBeGreaterThanOrEqual(TARGET_BUCKET);
          }
          expectLocatable(merged, sorted);
          for (const prefix of ['00', '05', '0a', '1z', 'zz']) {
            expect(countBelowPrefix(merged, prefix)).toBe(sorted.filter((k) => prefixOf(k) < prefix).length);
          }
          directory = merged;
        }
      }),
      fcParameters({ numRuns: 60 }),
    );
  });
});
