/**
 * The simulator's only source of randomness: a seeded PRNG (sfc32), so that one seed gives one
 * market. Independent streams are forked from the root, so requests (fault draws, webhook
 * drops) never shift what the bots draw: the same seed and the same ticks give the same state
 * whatever traffic the server saw in between.
 */
export interface Prng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with the given probability (0..1). */
  chance(probability: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** A new independent stream, seeded from this one. */
  fork(): Prng;
}

const sfc32 = (a: number, b: number, c: number, d: number): (() => number) => {
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  };
};

const fromWords = (a: number, b: number, c: number, d: number): Prng => {
  const raw = sfc32(a, b, c, d);
  // sfc32's first outputs still show the seed's structure: discard a few, as its authors advise.
  for (let i = 0; i < 12; i++) raw();
  const prng: Prng = {
    next: raw,
    int: (min, max) => {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) throw new RangeError(`bad integer range [${min}, ${max}]`);
      return min + Math.floor(raw() * (max - min + 1));
    },
    chance: (probability) => probability > 0 && raw() < probability,
    pick: (items) => {
      if (items.length === 0) throw new RangeError('cannot pick from an empty list');
      return items[Math.floor(raw() * items.length)] as (typeof items)[number];
    },
    fork: () => fromWords((raw() * 4_294_967_296) >>> 0, (raw() * 4_294_967_296) >>> 0, (raw() * 4_294_967_296) >>> 0, (raw() * 4_294_967_296) >>> 0),
  };
  return prng;
};

/** The root stream of a seed (any integer; the same seed always gives the same numbers). */
export const createPrng = (seed: number): Prng => fromWords(0x9e3779b9, 0x243f6a88, 0xb7e15162, seed >>> 0);
