import fc from 'fast-check';
import { costBasedFields } from '../../../lambdas/domain/pricing.js';
import { fcParameters, fcRuns } from '../../support/seed.js';

/**
 * `repricer_approach: cost_based` (docs/api.md, "Computed fields"): whatever the costs, profits
 * and fees, the floor leaves at least `min_profit` and the ceiling at least `preferred_profit`
 * after commission and fulfilment, and each is the smallest cent that does. Checked in integer
 * arithmetic of its own (cents, and the rate in hundredths of a percent), not the code's.
 */
const cents = (value: number) => BigInt(Math.round(value * 100));

/** The profit a price leaves, times 10,000 (the rate's denominator): price * (1 - r) - F - cost. */
const profitTimes10k = (priceCents: bigint, rateHundredths: bigint, fulfilmentCents: bigint, costCents: bigint) =>
  priceCents * (10_000n - rateHundredths) - (fulfilmentCents + costCents) * 10_000n;

const amount = (max: number) => fc.integer({ min: 0, max: max * 100 }).map((c) => c / 100);

describe('cost_based bounds', () => {
  it('leave at least their profit after fees, exactly, and are the smallest cents that do', () => {
    fc.assert(
      fc.property(
        amount(100_000),
        amount(10_000),
        amount(10_000),
        amount(5_000),
        fc.integer({ min: 0, max: 9_999 }),
        fc.integer({ min: 0, max: 20 }),
        (unitCost, profitA, profitB, fulfilment, rateHundredths, soh) => {
          const [minProfit, preferredProfit] = profitA <= profitB ? [profitA, profitB] : [profitB, profitA];
          const estimate = { commission: 0, fulfilment, commission_percentage: rateHundredths / 100 };
          const outcome = costBasedFields(
            { unit_cost: unitCost, preferred_profit: preferredProfit, min_profit: minProfit },
            // soh picks the stock mode; both modes carry the same fees here, so the bounds must not depend on it.
            { soh, fee_estimates: { takealot: { instock: estimate, leadtime: estimate } } },
            'takealot',
          );
          if (!outcome.ok) {
            // Refused only when nothing is to be covered (no positive floor) or the ceiling is out of range.
            expect(outcome.field).toBe('unit_cost');
            return;
          }
          const { min_price, preferred_price, fixed_fulfilment_fee } = outcome.fields;
          expect(fixed_fulfilment_fee).toBe(fulfilment);
          const rate = BigInt(rateHundredths);
          const leaves = (price: number) => profitTimes10k(cents(price), rate, cents(fulfilment), cents(unitCost));
          const floorCents = cents(min_price);
          const ceilingCents = cents(preferred_price);
          expect(floorCents).toBeGreaterThan(0n);
          expect(floorCents).toBeLessThanOrEqual(ceilingCents);
          expect(leaves(min_price)).toBeGreaterThanOrEqual(cents(minProfit) * 10_000n);
          expect(leaves(preferred_price)).toBeGreaterThanOrEqual(cents(preferredProfit) * 10_000n);
          // One cent less would leave less: rounded up to the cent, never further.
          expect(profitTimes10k(floorCents - 1n, rate, cents(fulfilment), cents(unitCost))).toBeLessThan(cents(minProfit) * 10_000n);
          expect(profitTimes10k(ceilingCents - 1n, rate, cents(fulfilment), cents(unitCost))).toBeLessThan(cents(preferredProfit) * 10_000n);
          // Whole cents: what the API stores.
          expect(Math.round(min_price * 100) / 100).toBe(min_price);
          expect(Math.round(preferred_price * 100) / 100).toBe(preferred_price);
        },
      ),
      fcParameters({ numRuns: fcRuns(500, 2500) }),
    );
  });
});
