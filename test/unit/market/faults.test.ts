import { drawFault, StorefrontBlocker } from '../../../tools/market/faults.js';
import { DEFAULT_FAULTS } from '../../../tools/market/options.js';
import { createPrng } from '../../../tools/market/prng.js';

describe('request faults', () => {
  it('never faults with every rate at 0, always with a rate of 1', () => {
    const prng = createPrng(1);
    for (let i = 0; i < 100; i++) expect(drawFault(DEFAULT_FAULTS, prng)).toEqual({ kind: 'none' });
    expect(drawFault({ ...DEFAULT_FAULTS, errorRate: 1 }, prng)).toEqual({ kind: 'error' });
    expect(drawFault({ ...DEFAULT_FAULTS, timeoutRate: 1, hangMs: 1234 }, prng)).toEqual({ kind: 'hang', ms: 1234 });
  });

  it('faults at about the configured rate, the same draws for the same seed', () => {
    const draws = (seed: number) => {
      const prng = createPrng(seed);
      return Array.from({ length: 2_000 }, () => drawFault({ ...DEFAULT_FAULTS, errorRate: 0.25 }, prng).kind);
    };
    const errors = draws(3).filter((kind) => kind === 'error').length;
    expect(errors).toBeGreaterThan(400);
    expect(errors).toBeLessThan(600);
    expect(draws(3)).toEqual(draws(3));
  });
});

describe('storefront bot protection', () => {
  it('refuses a whole burst of storefrontBlockLength requests once tripped, then lets requests through', () => {
    const blocker = new StorefrontBlocker();
    const prng = createPrng(1);
    const tripping = { ...DEFAULT_FAULTS, storefrontBlockRate: 1, storefrontBlockLength: 3 };
    expect(blocker.blocks(tripping, prng)).toBe(true);
    // Rarely tripping now: the burst under way goes on, then requests pass.
    const rare = { ...tripping, storefrontBlockRate: 1e-9 };
    expect([1, 2, 3, 4].map(() => blocker.blocks(rare, prng))).toEqual([true, true, false, false]);
  });

  it('refuses nothing once turned off, a burst under way included', () => {
    const blocker = new StorefrontBlocker();
    const prng = createPrng(1);
    const tripping = { ...DEFAULT_FAULTS, storefrontBlockRate: 1, storefrontBlockLength: 5 };
    expect(blocker.blocks(tripping, prng)).toBe(true);
    const off = { ...tripping, storefrontBlockRate: 0 };
    expect([1, 2].map(() => blocker.blocks(off, prng))).toEqual([false, false]);
  });
});
