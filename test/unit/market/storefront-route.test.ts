import { ManualClock } from '../../../tools/market/clock.js';
import { productDetails, storefrontTarget } from '../../../tools/market/storefront-route.js';
import { Simulation } from '../../../tools/market/simulation.js';

describe('storefront product details', () => {
  it.each([
    ['/rest/v-1-8-0/product-details/PLID123', { plid: 123 }],
    ['/rest/v-1-19-0/product-details/PLID123', { plid: 123 }],
    ['/rest/v-1-7-0/product-details/PLID123', 'bad-minor'],
    ['/rest/v-1-20-0/product-details/PLID123', 'bad-minor'],
    ['/rest/v-1-10-0/product-details/123', 'not-storefront'],
  ])('reads %s as %j', (path, expected) => {
    expect(storefrontTarget(path)).toEqual(expected);
  });

  it('shows the Best Price winner first and selected, the Fastest Delivery winner second, the rest under other_offers', () => {
    const sim = new Simulation({ seed: 5, products: 1, competitors: 3, clock: new ManualClock() });
    const product = sim.market.products[0]!;
    // A known field: the own offer leadtime and cheapest, one rival in stock, the others dearer and in stock.
    product.in_stock_premium_pct = 10;
    product.own.takealot_warehouse_stock.forEach((stock) => (stock.quantity_available = 0));
    product.own.selling_price = 100;
    product.competitors.forEach((offer, index) => Object.assign(offer, { available: true, in_stock: true, price: 200 + index }));
    product.competitors[1]!.price = 120;
    const page = productDetails(sim.market, product) as any;
    expect(page.buybox.items.map((item: any) => [item.sku, item.price, item.is_selected, item.stock_availability.is_leadtime])).toEqual([
      [product.own.sku, 100, true, true],
      [product.competitors[1]!.sku, 120, false, false],
    ]);
    expect(page.other_offers.conditions[0].items.map((item: any) => item.price)).toEqual([200, 202]);
    // Within the premium (111 * 90 = 9990 < 10000) the in-stock rival takes Best Price too: one item holds both slots.
    product.competitors[1]!.price = 111;
    const next = productDetails(sim.market, product) as any;
    expect(next.buybox.items).toHaveLength(1);
    expect(next.buybox.items[0]).toMatchObject({
      sku: product.competitors[1]!.sku,
      is_selected: true,
      seller: { seller_id: product.competitors[1]!.seller.seller_id },
    });
  });
});
