import { ManualClock, Simulation } from '../../../tools/market/index.js';
import { STATIC_SELLER } from '../../../tools/market/catalogue.js';

const simulation = (staticSeller: boolean) =>
  new Simulation({ seed: 11, products: 6, competitors: 5, staticSeller, clock: new ManualClock(), tickIntervalMs: 1_000 });

describe('static-price seller', () => {
  it('adds one offer per product at the demo seller’s start price, with its stock, and leaves the rest of the market as the seed makes it', () => {
    const plain = simulation(false);
    const withStatic = simulation(true);
    withStatic.market.products.forEach((product, i) => {
      const other = plain.market.products[i]!;
      expect(product.competitors).toHaveLength(other.competitors.length + 1);
      expect(product.competitors.slice(0, -1)).toEqual(other.competitors);
      const offer = product.competitors.at(-1)!;
      expect(offer.seller).toEqual(STATIC_SELLER);
      expect(offer.price).toBe(product.own.selling_price);
      expect(offer.in_stock).toBe(product.own.takealot_warehouse_stock.some((stock) => stock.quantity_available > 0));
    });
  });

  it('never moves its price however the bots tick', () => {
    const sim = simulation(true);
    const start = sim.market.products.map((product) => product.competitors.at(-1)!.price);
    sim.tick(50);
    expect(sim.market.products.map((product) => product.competitors.at(-1)!.price)).toEqual(start);
  });

  it('wins a tie at the same price, so the demo seller holds Best Price only when cheaper', () => {
    const sim = simulation(true);
    const product = sim.market.products[0]!;
    const offer = product.competitors.at(-1)!;
    // Every bot out of the way: only the own offer and the static one compete.
    for (const rival of product.competitors) if (rival !== offer) rival.available = false;
    expect(sim.market.buyBox(product).bestPrice?.id).toBe(offer.key);
    sim.updateOwnOffer(product, { selling_price: offer.price - 1 }, { via: 'patch' });
    expect(sim.market.buyBox(product).bestPrice?.id).toBe(String(product.own.offer_id));
  });

  it('is refused unless true or false', () => {
    expect(() => new Simulation({ staticSeller: 'yes' as unknown as boolean })).toThrow('staticSeller');
  });
});
