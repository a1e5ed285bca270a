/**
 * An order-statistics directory over one sorted key set (one offer view in one sort order).
 *
 * The keys are split into contiguous buckets; the directory stores each bucket's lower bound
 * and exact count, so "which key is at position p" becomes: add counts to find the bucket,
 * then step at most half a bucket through the keys. `total` is the sum of the counts, and the
 * optional histogram (counts per key prefix) answers "how many keys sort below prefix X".
 *
 * Invariants (tested against a recount): bounds[0] is '', bounds are strictly increasing,
 * counts[i] is the number of keys k with bounds[i] <= k < bounds[i + 1], no bucket but the
 * first is empty, and histogram[x] is the number of keys starting with x.
 */
export interface RankDirectory {
  readonly bounds: readonly string[];
  readonly counts: readonly number[];
  readonly histogram?: Readonly<Record<string, number>>;
}

/** A bucket is split once it holds more than this many keys... */
export const MAX_BUCKET = 256;
/** ...into parts of about this size; neighbours are merged while their sum stays below it. */
export const TARGET_BUCKET = 128;

export const emptyDirectory = (withHistogram: boolean): RankDirectory => ({
  bounds: [''],
  counts: [0],
  ...(withHistogram ? { histogram: {} } : {}),
});

export const totalOf = (directory: RankDirectory): number => directory.counts.reduce((sum, n) => sum + n, 0);

/** Index of the bucket whose range holds `key`. */
export const bucketOf = (directory: RankDirectory, key: string): number => {
  let low = 0;
  let high = directory.bounds.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((directory.bounds[middle] ?? '') <= key) low = middle;
    else high = middle - 1;
  }
  return low;
};

/** Number of keys whose histogram prefix sorts before `prefix`. */
export const countBelowPrefix = (directory: RankDirectory, prefix: string): number =>
  Object.entries(directory.histogram ?? {}).reduce((sum, [p, n]) => (p < prefix ? sum + n : sum), 0);

export interface BucketPosition {
  readonly index: number;
  /** Keys in the buckets before this one. */
  readonly before: number;
  readonly count: number;
  readonly lower: string;
  /** Exclusive upper bound; undefined for the last bucket. */
  readonly upper: string | undefined;
  /** Position of the wanted key inside the bucket, 0-based. */
  readonly offset: number;
}

/** The bucket holding the key at 0-based `position` (which must be below the total). */
export const locate = (directory: RankDirectory, position: number): BucketPosition => {
  let before = 0;
  for (let index = 0; index < directory.counts.length; index++) {
    const count = directory.counts[index] ?? 0;
    if (position < before + count) {
      return {
        index,
        before,
        count,
        lower: directory.bounds[index] ?? '',
        upper: directory.bounds[index + 1],
        offset: position - before,
      };
    }
    before += count;
  }
  throw new RangeError(`Position ${position} is beyond the ${before} keys of the directory`);
};

export interface KeyChanges {
  readonly inserted: readonly string[];
  readonly removed: readonly string[];
}

/**
 * Counts after inserting and removing keys (the caller guarantees inserted keys are absent and
 * removed keys present). Returns the buckets that grew past MAX_BUCKET; the caller reads their
 * keys and calls `splitBucket`.
 */
export const applyKeyChanges = (
  directory: RankDirectory,
  changes: KeyChanges,
  prefixOf?: (key: string) => string,
): { directory: RankDirectory; oversized: number[] } => {
  const counts = [...directory.counts];
  const histogram = directory.histogram ? { ...directory.histogram } : undefined;
  const adjust = (key: string, delta: number) => {
    const index = bucketOf(directory, key);
    counts[index] = (counts[index] ?? 0) + delta;
    if (histogram && prefixOf) {
      const prefix = prefixOf(key);
      const next = (histogram[prefix] ?? 0) + delta;
      if (next === 0) delete histogram[prefix];
      else histogram[prefix] = next;
    }
  };
  for (const key of changes.removed) adjust(key, -1);
  for (const key of changes.inserted) adjust(key, +1);
  if (counts.some((n) => n < 0)) throw new Error('Directory count went negative: keys and directory disagree');
  const oversized = counts.flatMap((n, i) => (n > MAX_BUCKET ? [i] : []));
  return { directory: { bounds: directory.bounds, counts, ...(histogram ? { histogram } : {}) }, oversized };
};

/** Replaces bucket `index` by parts of about TARGET_BUCKET keys; `keys` are its exact sorted keys. */
export const splitBucket = (directory: RankDirectory, index: number, keys: readonly string[]): RankDirectory => {
  if (keys.length !== directory.counts[index]) throw new Error('Split keys do not match the bucket count');
  const parts = Math.ceil(keys.length / TARGET_BUCKET);
  const size = Math.ceil(keys.length / parts);
  const bounds: string[] = [];
  const counts: number[] = [];
  for (let i = 0; i < parts; i++) {
    bounds.push(i === 0 ? (directory.bounds[index] ?? '') : (keys[i * size] ?? ''));
    counts.push(Math.min(size, keys.length - i * size));
  }
  return {
    ...directory,
    bounds: [...directory.bounds.slice(0, index), ...bounds, ...directory.bounds.slice(index + 1)],
    counts: [...directory.counts.slice(0, index), ...counts, ...directory.counts.slice(index + 1)],
  };
};

/** Folds empty and small neighbouring buckets together; the first bound ('') always stays. */
export const mergeSmallBuckets = (directory: RankDirectory): RankDirectory => {
  const bounds: string[] = [];
  const counts: number[] = [];
  directory.counts.forEach((count, i) => {
    const last = counts.length - 1;
    if (last >= 0 && (count === 0 || (counts[last] ?? 0) + count < TARGET_BUCKET)) {
      counts[last] = (counts[last] ?? 0) + count;
    } else {
      bounds.push(directory.bounds[i] ?? '');
      counts.push(count);
    }
  });
  return { ...directory, bounds, counts };
};
