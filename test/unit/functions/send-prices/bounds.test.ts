import { screenPushes } from '../../../../lambdas/functions/send-prices/bounds.js';
import type { ProductBounds } from '../../../../lambdas/data/price-changes/send-bounds.js';
import type { RepricerSlot } from '../../../../lambdas/data/repricers/slots.js';
import { push } from './fixtures.js';

/**
 * The bounds check of every push attempt (docs/price-sending.md, "The sender"): prices are held
 * against the repricer's floor and ceiling and the rrp as they are at the attempt, not as they
 * were when the change was planned.
 */
const slot = (overrides: Partial<RepricerSlot> = {}): RepricerSlot => ({
  repricerId: 1,
  enabled: true,
  connector: 'takealot',
  min_price: 80,
  preferred_price: 100,
  buybox_approach: 'cheapest',
  repricer_approach: 'fixed',
  exclude_seller_ids: [],
  min_competitor_rating: null,
  competitor_stock: 'any',
  max_competitor_leadtime_days: null,
  price_war_guard: null,
  ...overrides,
});
const fresh = (entries: Record<string, ProductBounds>) => new Map(Object.entries(entries));

describe('the bounds at a push attempt', () => {
  it('sends what is still inside and leaves out a price under a floor raised since the change was planned', () => {
    const kept = push(90, { product_code: 'P-1', new_price: 90 });
    const under = push(85, { product_code: 'P-2', new_price: 85 });
    const screening = screenPushes(
      [kept, under],
      fresh({ 'P-1': { slot: slot(), rrp: undefined }, 'P-2': { slot: slot({ min_price: 86 }), rrp: undefined } }),
      1,
    );
    expect(screening.inside).toEqual([kept]);
    expect(screening.outside).toEqual([{ push: under, to: 'failed', reason: expect.stringMatching(/85 is under the repricer's min_price 86/) as unknown }]);
  });

  it('leaves out a price over a lowered ceiling or rrp', () => {
    const over = push(95, { new_price: 95 });
    expect(screenPushes([over], fresh({ 'P-1': { slot: slot({ preferred_price: 94 }), rrp: undefined } }), 1).outside).toMatchObject([{ to: 'failed' }]);
    expect(screenPushes([over], fresh({ 'P-1': { slot: slot(), rrp: 92 } }), 1).outside).toMatchObject([
      { to: 'failed', reason: expect.stringMatching(/rrp 92/) as unknown },
    ]);
  });

  it('plans a capped step again when only the step left the bounds, the target still inside', () => {
    // From 120 down to 90, the first step is 96; the ceiling lowered to 95 puts the step out, not the
    // target: planned again, the next plan brings it inside in one push (the bounds win over the step cap).
    const step = push(96, { new_price: 90 });
    expect(screenPushes([step], fresh({ 'P-1': { slot: slot({ preferred_price: 95 }), rrp: undefined } }), 1).outside).toEqual([{ push: step, to: 'pending' }]);
  });

  it('sends nothing for a repricer deleted or replaced, or a product gone', () => {
    const pushed = push(90);
    for (const found of [
      fresh({}),
      fresh({ 'P-1': { slot: undefined, rrp: undefined } }),
      fresh({ 'P-1': { slot: slot({ repricerId: 2 }), rrp: undefined } }),
    ]) {
      expect(screenPushes([pushed], found, 1)).toEqual({
        inside: [],
        outside: [{ push: pushed, to: 'failed', reason: 'The repricer was deleted before this price was sent.' }],
      });
    }
  });

  it('holds prices to the step grid as it is now', () => {
    expect(screenPushes([push(90.5, { new_price: 90.5 })], fresh({ 'P-1': { slot: slot(), rrp: undefined } }), 1).outside).toMatchObject([
      { to: 'failed', reason: expect.stringMatching(/step/) as unknown },
    ]);
  });
});
