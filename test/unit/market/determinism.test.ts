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
});
