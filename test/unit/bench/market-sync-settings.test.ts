import { marketSyncSettings, reportLines } from '../../../tools/bench/market-sync.js';
import type { TrafficSummary } from '../../../tools/market/traffic.js';

const traffic = (refused: number, inside: number): TrafficSummary => ({
  politeness: {
    seller: { requests: 10, refused: 0, blocked: 0, inside_retry_after: 0 },
    storefront: { requests: 10, refused, blocked: 0, inside_retry_after: inside },
  },
  requests: {},
  storefront_reads: 10,
});

describe('market-sync benchmark settings and report', () => {
  it('reads --quick, the numeric flags and --skip, and refuses what it does not know', () => {
    const quick = marketSyncSettings(['--quick', '--offers', '1000', '--skip', 'freshness']);
    expect(quick).toMatchObject({ quick: true, offers: 1000, products: 20 });
    expect([...quick.skip]).toEqual(['freshness']);
    expect(marketSyncSettings([])).toMatchObject({ quick: false, offers: 10_000, freshnessProducts: 1_000, storefrontLimit: 10 });
    expect(() => marketSyncSettings(['--offers', '0'])).toThrow('--offers takes a whole number');
    expect(() => marketSyncSettings(['--bogus', '1'])).toThrow('Unknown option --bogus');
    expect(() => marketSyncSettings(['--skip', 'nothing'])).toThrow('--skip takes');
  });

  it('judges each figure against its target and lists the first differences', () => {
    const { lines, targets } = reportLines({
      convergence: {
        products: 2,
        historyTicks: 3,
        ownChanges: 1,
        comparedOffers: 4,
        comparedFields: 40,
        differences: 1,
        webhooks: { delivered: 5, dropped: 4, duplicated: 1, failed: 0 },
        firstDifferences: [{ offer: 'own 5', field: 'offer_price', expected: 10, served: 9 }],
        cycleSeconds: [1, 2],
        traffic: traffic(0, 0),
      },
      freshness: {
        products: 2,
        storefrontLimit: 10,
        tickSeconds: 60,
        seconds: 300,
        ticks: 5,
        readsPerSecond: 8,
        ages: { products: 2, samples: 10, p50Seconds: 40, p99Seconds: 131, maxSeconds: 150, longestGapSeconds: 150, neverRead: 0 },
        traffic: traffic(2, 1),
      },
    });
    expect(targets.map((t) => [t.label.split(':')[0], t.value])).toEqual([
      ['fields differing of 40 (4 offers)', 1],
      ['p99 age of a repriced product’s view', 131],
      ['convergence', 0],
      ['convergence', 0],
      ['freshness', 2],
      ['freshness', 1],
    ]);
    expect(lines).toContain('    own 5 offer_price: market 10, served 9');
    expect(lines.filter((line) => line.endsWith('MISSED'))).toHaveLength(4);
    expect(lines.filter((line) => line.endsWith(' MET'))).toHaveLength(2);
  });
});
