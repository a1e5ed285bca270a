import { checkPrice, type CheckedPrice } from '../../../../lambdas/functions/send-prices/guard.js';
import { priceUpdates } from '../../../../lambdas/functions/send-prices/push.js';
import type { ProductBounds } from '../../../../lambdas/data/price-changes/send-bounds.js';
import type { SendBounds } from '../../../../lambdas/domain/price-push.js';
import { planned } from './fixtures.js';

/**
 * The guard's one check of a price against its bounds (docs/price-sending.md, "The sender"): the
 * repricer's floor and ceiling and the rrp as they are just before the push, not as they were
 * when the change was decided; only a price it checked can be pushed.
 */
const found = (overrides: Partial<SendBounds> = {}, repricerId = 1): ProductBounds => ({
  repricerId,
  bounds: { min_price: 80, preferred_price: 100, rrp: undefined, step: 1, ...overrides },
});

describe('the guard’s check of a price', () => {
  it('refuses a price under the floor', () => {
    expect(checkPrice(planned(79, { new_price: 79 }), found())).toEqual({ to: 'failed', reason: "Not sent: 79 is under the repricer's min_price 80." });
  });

  it('refuses a price over the ceiling, or over the rrp under the ceiling', () => {
    expect(checkPrice(planned(101, { new_price: 101 }), found())).toEqual({
      to: 'failed',
      reason: "Not sent: 101 is over the repricer's preferred_price 100.",
    });
    expect(checkPrice(planned(95, { new_price: 95 }), found({ rrp: 92 }))).toEqual({ to: 'failed', reason: "Not sent: 95 is over the offer's rrp 92." });
  });

  it('lets a price at the floor and at the ceiling through, as itself', () => {
    expect(checkPrice(planned(80, { new_price: 80 }), found())).toBe(80);
    expect(checkPrice(planned(100, { new_price: 100 }), found())).toBe(100);
  });

  it('holds the price to the bounds read last, not those of the decision', () => {
    // Decided at 85 while the floor was 80; the floor raised to 86 since: the later bound wins.
    expect(checkPrice(planned(85, { new_price: 85 }), found({ min_price: 86 }))).toEqual({
      to: 'failed',
      reason: "Not sent: 85 is under the repricer's min_price 86.",
    });
    // Decided at 99 under a ceiling of 100, lowered to 98 since.
    expect(checkPrice(planned(99, { new_price: 99 }), found({ preferred_price: 98 }))).toMatchObject({ to: 'failed' });
    // A floor lowered since lets a price through that the old one held back.
    expect(checkPrice(planned(75, { new_price: 75 }), found({ min_price: 70 }))).toBe(75);
  });

  it('brings a capped step inside the bounds (the bounds win over the step cap), once: a step already pushed is planned again', () => {
    // From 120 toward 90, the capped step is 96; under a ceiling of 95 it becomes 95.
    const step = planned(96, { new_price: 90 });
    expect(checkPrice(step, found({ preferred_price: 95 }))).toBe(95);
    // A later attempt carries its price unchanged: the step no longer inside, the change is planned again.
    expect(checkPrice(step, found({ preferred_price: 95 }), true)).toEqual({ to: 'pending' });
  });

  it('refuses a price off the step grid', () => {
    expect(checkPrice(planned(90.5, { new_price: 90.5 }), found())).toMatchObject({ to: 'failed', reason: expect.stringMatching(/price step/) as unknown });
  });

  it('sends nothing for a repricer deleted or replaced, or a product gone', () => {
    const reason = 'The repricer was deleted before this price was sent.';
    expect(checkPrice(planned(90), undefined)).toEqual({ to: 'failed', reason });
    expect(checkPrice(planned(90), found({}, 2))).toEqual({ to: 'failed', reason });
  });

  it('is the only way to a pushable price', () => {
    const checked = checkPrice(planned(90), found()) as CheckedPrice;
    const change = planned(90).change;
    expect(priceUpdates([{ ...planned(90), price: checked }])).toEqual([{ offerId: 'O-1', sellingPrice: 90 }]);
    // A planned, unchecked price does not compile as a push.
    // @ts-expect-error a number is not a CheckedPrice
    priceUpdates([{ kind: 'push', change, price: 90, current: 100, rivalPrices: [] }]);
    // @ts-expect-error nor is a planned push
    priceUpdates([planned(90)]);
  });
});
