import fc from 'fast-check';
import { dropExplained } from '../../../lambdas/domain/breaker-evidence.js';
import { fcParameters, fcRuns } from '../../support/seed.js';

describe('dropExplained: which sharp drops the circuit breaker counts', () => {
  it('explains a drop that follows rivals undercutting each other', () => {
    expect(dropExplained({ rivalPrices: [100, 101, 104], currentPrice: 130 }, 30)).toBe(true);
  });

  it('does not explain a drop toward a rival read at a fraction of the others', () => {
    expect(dropExplained({ rivalPrices: [30, 101, 104], currentPrice: 130 }, 30)).toBe(false);
  });

  it("measures a lone rival against the offer's own price, and counts a drop toward no rival", () => {
    expect(dropExplained({ rivalPrices: [95], currentPrice: 120 }, 30)).toBe(true);
    expect(dropExplained({ rivalPrices: [40], currentPrice: 120 }, 30)).toBe(false);
    expect(dropExplained({ rivalPrices: [], currentPrice: 120 }, 30)).toBe(false);
  });

  it('does not depend on the order the rivals come in, and a cheaper lowest rival is never better explained', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 100_000 }), (prices, current) => {
        const explained = dropExplained({ rivalPrices: prices, currentPrice: current }, 30);
        expect(dropExplained({ rivalPrices: [...prices].reverse(), currentPrice: current }, 30)).toBe(explained);
        const lowest = Math.min(...prices);
        const cheaper = prices.map((price) => (price === lowest ? Math.max(1, Math.floor(price / 2)) : price));
        if (!explained) expect(dropExplained({ rivalPrices: cheaper, currentPrice: current }, 30)).toBe(false);
      }),
      fcParameters({ numRuns: fcRuns(100, 1_000) }),
    );
  });
});
