import { compareOffers, met, verdictLine, viewAges, type ComparedFields } from '../../../tools/bench/market-figures.js';

describe('market-sync benchmark figures', () => {
  it('ages a view from its latest read at each sampled moment, and finds the longest gap, the end included', () => {
    const reads = new Map([
      ['1', [0, 100_000, 220_000]],
      ['2', [50_000]],
    ]);
    const ages = viewAges(reads, { readsFrom: 0, from: 120_000, to: 240_000, everyMs: 60_000 });
    // Product 1 at 120 s, 180 s, 240 s: 20, 80, 20 s; product 2: 70, 130, 190 s. The median of six is the fourth (80).
    expect(ages).toMatchObject({ products: 2, samples: 6, p50Seconds: 80, maxSeconds: 190, neverRead: 0 });
    expect(ages.p99Seconds).toBe(190);
    expect(ages.longestGapSeconds).toBe(190);
  });

  it('counts a product never read as old as the window allows', () => {
    const ages = viewAges(new Map([['9', []]]), { readsFrom: 0, from: 0, to: 10_000, everyMs: 5_000 });
    expect(ages).toMatchObject({ neverRead: 1, maxSeconds: 10, longestGapSeconds: 10 });
  });

  it('compares every expected field, reports missing and unexpected offers', () => {
    const expected = new Map<string, ComparedFields>([
      ['own 1', { offer_price: 100, winning: true }],
      ['own 2', { offer_price: 50 }],
    ]);
    const served = new Map<string, ComparedFields>([
      ['own 1', { offer_price: 100, winning: false }],
      ['P / 7', { offer_price: 1 }],
    ]);
    expect(compareOffers(expected, served)).toEqual([
      { offer: 'own 1', field: 'winning', expected: true, served: false },
      { offer: 'own 2', field: 'offer_price', expected: 50, served: undefined },
      { offer: 'P / 7', field: '(offer)', expected: undefined, served: 'served' },
    ]);
    expect(compareOffers(expected, new Map(expected))).toEqual([]);
  });

  it('says MET or MISSED against a target', () => {
    expect(met({ label: 'x', value: 20, kind: 'max', limit: 20 })).toBe(true);
    expect(met({ label: 'x', value: 130, kind: 'below', limit: 130 })).toBe(false);
    expect(verdictLine({ label: 'p99 age', value: 12.34, kind: 'below', limit: 130, unit: 's' })).toBe('p99 age: 12.3 s (target < 130 s) MET');
  });
});
