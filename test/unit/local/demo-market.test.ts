import { createRepricerBody } from '../../../lambdas/domain/create-repricer.js';
import { computedFields } from '../../../lambdas/domain/pricing.js';
import { DEMO_MARKET_REPRICER_COUNT, demoBounds, demoMarketRepricers, readControlState, type MarketControlState } from '../../../tools/local/demo-market.js';
import { Simulation } from '../../../tools/market/simulation.js';
import { controlState } from '../../../tools/market/control-routes.js';

describe('demoBounds', () => {
  it.each([
    // price, rrp -> floor, ceiling
    [100, 199, 70, 110], // floor 30 % down (room to follow the bots), ceiling 10 % up
    [100, 105, 70, 105], // the RRP caps the ceiling
    [100, 100, 70, 100], // at the RRP: no room up
    [2, 9, 1, 3],
    [3, 3, 2, 3],
  ])('price %d, rrp %d: floor %d, ceiling %d', (price, rrp, floor, ceiling) => {
    expect(demoBounds(price, rrp)).toEqual({ floor, ceiling });
  });

  it('has no room under a price of 1, or for a price that is not whole rand', () => {
    expect(demoBounds(1, 10)).toBeUndefined();
    expect(demoBounds(10.5, 20)).toBeUndefined();
  });

  it('keeps the floor below and the ceiling at or above the price, in whole rand, within the RRP', () => {
    for (let price = 2; price <= 3000; price += 7) {
      for (const rrp of [price, price + 1, price * 2]) {
        const { floor, ceiling } = demoBounds(price, rrp)!;
        expect([Number.isInteger(floor), Number.isInteger(ceiling)]).toEqual([true, true]);
        expect(floor).toBeGreaterThanOrEqual(1);
        expect(floor).toBeLessThan(price);
        // Never more than 30 % under the price.
        expect(floor * 10).toBeGreaterThanOrEqual(price * 7 - 10);
        expect(ceiling).toBeGreaterThanOrEqual(price);
        expect(ceiling).toBeLessThanOrEqual(rrp);
      }
    }
  });
});

describe('demoMarketRepricers', () => {
  const state = readControlState(controlState(new Simulation({ seed: 1, products: 50, tickIntervalMs: 0 })))!;
  const allCodes = new Set(state.products.map((p) => p.own.sku));

  it("reads the simulator's control state", () => {
    expect(state.products).toHaveLength(50);
    expect(readControlState({ products: 'no' })).toBeUndefined();
  });

  it('chooses up to 20 synced, buyable products with competitors, in the market order', () => {
    const requests = demoMarketRepricers(state, allCodes);
    expect(requests).toHaveLength(DEMO_MARKET_REPRICER_COUNT);
    const order = state.products.map((p) => p.own.sku);
    const positions = requests.map((r) => order.indexOf(r.product_code));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(requests.every((r) => r.connector === 'takealot' && r.enabled)).toBe(true);
  });

  it('only products the sync has brought in', () => {
    const some = new Set([...allCodes].slice(0, 3));
    expect(demoMarketRepricers(state, some).map((r) => r.product_code)).toEqual([...some]);
    expect(demoMarketRepricers(state, new Set())).toEqual([]);
  });

  it('skips a product that is not buyable or has no competitor on the page', () => {
    const [first, second, ...rest] = state.products;
    const changed: MarketControlState = {
      products: [
        { ...first!, own: { ...first!.own, status: 'disabled_by_seller' } },
        { ...second!, competitors: second!.competitors.map((c) => ({ ...c, available: false })) },
        ...rest,
      ],
    };
    const codes = demoMarketRepricers(changed, allCodes).map((r) => r.product_code);
    expect(codes).not.toContain(first!.own.sku);
    expect(codes).not.toContain(second!.own.sku);
  });

  it('are valid create bodies whose floor, as the API computes it for a product without fees, is under the price', () => {
    for (const request of demoMarketRepricers(state, allCodes)) {
      const own = state.products.find((p) => p.own.sku === request.product_code)!.own;
      const computed = computedFields(
        { ...createRepricerBody.parse(request), preferred_price: request.preferred_price },
        { soh: 0, fee_estimates: null },
        'takealot',
      );
      expect(computed.ok).toBe(true);
      if (!computed.ok) continue;
      expect(computed.fields.min_price).toBeLessThan(own.selling_price);
      expect(request.preferred_price).toBeGreaterThanOrEqual(own.selling_price);
      expect(request.preferred_price).toBeLessThanOrEqual(own.rrp);
    }
  });
});
