import fc from 'fast-check';
import { decideBuyBox, type ListedOffer } from '../../../tools/market/buy-box.js';

const seller = (id: number) => ({ seller_id: id, display_name: `Seller ${id}`, rating_avg: 4, rating_count: 10, is_takealot: false });

const offer = (id: string, price: number, inStock: boolean, extra: Partial<ListedOffer> = {}): ListedOffer => ({
  id,
  sku: `SKU-${id}`,
  price,
  in_stock: inStock,
  leadtime_days: 5,
  listed_at: 1_000,
  seller: seller(1),
  ...extra,
});

describe('buy box: Best Price', () => {
  it('lets an in-stock offer win while dearer than a leadtime offer, within the premium (5 %: 105 * 95 = 9975 < 10000)', () => {
    const box = decideBuyBox([offer('leadtime', 100, false), offer('stocked', 105, true)], 5);
    expect(box.bestPrice?.id).toBe('stocked');
  });

  it('gives it to the leadtime offer once the in-stock one is dearer than the premium allows (106 * 95 = 10070 > 10000)', () => {
    const box = decideBuyBox([offer('leadtime', 100, false), offer('stocked', 106, true)], 5);
    expect(box.bestPrice?.id).toBe('leadtime');
    expect(box.fastestDelivery?.id).toBe('stocked');
  });

  it('compares plain prices when the premium is 0', () => {
    expect(decideBuyBox([offer('leadtime', 100, false), offer('stocked', 101, true)], 0).bestPrice?.id).toBe('leadtime');
  });

  it('breaks a tie in effective price in favour of the earlier listing', () => {
    const box = decideBuyBox([offer('late', 100, true, { listed_at: 2_000 }), offer('early', 100, true, { listed_at: 1_000 })], 3);
    expect(box.bestPrice?.id).toBe('early');
  });

  it('breaks a tie between in-stock and leadtime at the same effective price by listing too (100 * 100 = 125 * 80)', () => {
    const box = decideBuyBox([offer('stocked', 125, true, { listed_at: 2_000 }), offer('leadtime', 100, false, { listed_at: 1_500 })], 20);
    expect(box.bestPrice?.id).toBe('leadtime');
  });
});

describe('buy box: Fastest Delivery', () => {
  it('goes to the cheapest in-stock offer', () => {
    const box = decideBuyBox([offer('a', 90, false), offer('b', 120, true), offer('c', 110, true)], 0);
    expect(box.fastestDelivery?.id).toBe('c');
    expect(box.bestPrice?.id).toBe('a');
    expect(box.others.map((o) => o.id)).toEqual(['b']);
  });

  it('goes to the shortest lead time when nothing is in stock (ties: the cheaper)', () => {
    const box = decideBuyBox(
      [
        offer('slow', 80, false, { leadtime_days: 10 }),
        offer('quick-dear', 95, false, { leadtime_days: 3 }),
        offer('quick-cheap', 90, false, { leadtime_days: 3 }),
      ],
      0,
    );
    expect(box.fastestDelivery?.id).toBe('quick-cheap');
    expect(box.bestPrice?.id).toBe('slow');
  });

  it('has no winners on a product without offers', () => {
    expect(decideBuyBox([], 5)).toEqual({ bestPrice: undefined, fastestDelivery: undefined, others: [] });
  });
});

describe('buy box: the worked example of docs/market-simulator.md', () => {
  it('premium 5 %: B (in stock, R105) holds both slots; at R106 A (leadtime, R100) takes Best Price', () => {
    const a = offer('A', 100, false);
    const c = offer('C', 108, true);
    const atFive = decideBuyBox([a, offer('B', 105, true), c], 5);
    expect([atFive.bestPrice?.id, atFive.fastestDelivery?.id, atFive.others.map((o) => o.id)]).toEqual(['B', 'B', ['A', 'C']]);
    const atSix = decideBuyBox([a, offer('B', 106, true), c], 5);
    expect([atSix.bestPrice?.id, atSix.fastestDelivery?.id, atSix.others.map((o) => o.id)]).toEqual(['A', 'B', ['C']]);
  });
});

describe('buy box: invariants', () => {
  const offers = fc
    .array(
      fc.record({
        price: fc.integer({ min: 0, max: 10_000 }),
        in_stock: fc.boolean(),
        leadtime_days: fc.integer({ min: 1, max: 20 }),
        listed_at: fc.integer({ min: 0, max: 50 }),
      }),
      { minLength: 1, maxLength: 12 },
    )
    .map((rows) => rows.map((row, index) => offer(`o${String(index).padStart(2, '0')}`, row.price, row.in_stock, row)));

  it('Best Price has the lowest effective price, every offer is shown exactly once, others cheapest first', () => {
    fc.assert(
      fc.property(offers, fc.integer({ min: 0, max: 30 }), (list, premium) => {
        const box = decideBuyBox(list, premium);
        const effective = (o: ListedOffer) => o.price * (o.in_stock ? 100 - premium : 100);
        expect(list.every((o) => effective(box.bestPrice!) <= effective(o))).toBe(true);
        const shown = [box.bestPrice, box.fastestDelivery, ...box.others].filter((o, i, all) => all.indexOf(o) === i);
        expect(shown.map((o) => o!.id).sort()).toEqual(list.map((o) => o.id).sort());
        expect(box.others.map((o) => o.price)).toEqual([...box.others.map((o) => o.price)].sort((a, b) => a - b));
        if (list.some((o) => o.in_stock)) expect(box.fastestDelivery!.in_stock).toBe(true);
      }),
    );
  });
});
