import { ManualClock } from '../../../tools/market/clock.js';
import { drawFault } from '../../../tools/market/faults.js';
import { Simulation } from '../../../tools/market/simulation.js';

const simulation = (seed: number) => new Simulation({ seed, products: 8, competitors: 5, clock: new ManualClock(), tickIntervalMs: 1_000 });

describe('determinism', () => {
  it('gives the same market for the same seed and the same ticks', () => {
    const a = simulation(42);
    const b = simulation(42);
    expect(a.market.snapshot()).toEqual(b.market.snapshot());
    a.tick(25);
    b.tick(10);
    b.tick(15);
    expect(a.market.snapshot()).toEqual(b.market.snapshot());
  });

  it('gives another market for another seed, and the bots do move', () => {
    const a = simulation(42);
    const before = a.market.snapshot();
    a.tick(25);
    expect(a.market.snapshot().products).not.toEqual(before.products);
    expect(simulation(43).market.snapshot()).not.toEqual(simulation(42).market.snapshot());
  });

  it('keeps the bots on their own stream: requests drawing faults in between change nothing', () => {
    const quiet = simulation(7);
    const busy = simulation(7);
    busy.setFaults({ errorRate: 0.5, timeoutRate: 0.1 });
    for (let round = 0; round < 10; round++) {
      quiet.tick(3);
      for (let request = 0; request < round; request++) drawFault(busy.faults, busy.streams.faults);
      busy.tick(3);
    }
    expect(busy.market.snapshot()).toEqual(quiet.market.snapshot());
  });

  it('replays the same own-offer changes to the same state', () => {
    const run = () => {
      const sim = simulation(9);
      const [first, second] = sim.market.products;
      sim.tick(3);
      sim.updateOwnOffer(first!, { selling_price: Math.max(1, first!.own.selling_price - 40) }, { via: 'patch' });
      sim.tick(3);
      sim.updateOwnOffer(second!, { selling_price: 1 }, { via: 'patch' });
      sim.tick(4);
      return sim.market.snapshot();
    };
    expect(run()).toEqual(run());
  });

  describe('twins', () => {
    const twinned = () => new Simulation({ seed: 1, products: 6, competitors: 5, twins: 3, clock: new ManualClock(), tickIntervalMs: 1_000 });
    /** What a product's page and bots are, without the identifiers that number it. */
    const unnumbered = (product: ReturnType<Simulation['market']['snapshot']>['products'][number]) => ({
      own: { ...product.own, offer_id: 0, tsin_id: 0, sku: '', barcode: '', productline_id: 0 },
      premium: product.in_stock_premium_pct,
      competitors: product.competitors.map(({ key: _key, sku: _sku, ...offer }) => offer),
    });

    it('start as copies, each numbered as a product of its own', () => {
      const { products } = twinned().market.snapshot();
      expect(new Set(products.map((product) => product.own.sku)).size).toBe(6);
      expect(new Set(products.flatMap((product) => product.competitors.map((offer) => offer.key))).size).toBe(30);
      expect(products.slice(1, 3).map(unnumbered)).toEqual([unnumbered(products[0]!), unnumbered(products[0]!)]);
      expect(unnumbered(products[3]!)).not.toEqual(unnumbered(products[0]!));
    });

    it('move alike while their own prices are alike, and apart once one is repriced', () => {
      const sim = twinned();
      sim.tick(20);
      const moved = sim.market.snapshot().products;
      expect(unnumbered(moved[1]!)).toEqual(unnumbered(moved[0]!));
      expect(moved.map(unnumbered)).not.toEqual(twinned().market.snapshot().products.map(unnumbered));
    });

    it("part once one is repriced: its undercutters follow it, its twins' do not", () => {
      const sim = twinned();
      sim.updateOwnOffer(sim.market.products[1]!, { selling_price: 1 }, { via: 'patch' });
      sim.tick(1);
      const [first, second, third] = sim.market.snapshot().products.map(unnumbered);
      expect(third).toEqual(first);
      expect(second!.competitors).not.toEqual(first!.competitors);
    });
  });
});
