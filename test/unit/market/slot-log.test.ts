import { ManualClock } from '../../../tools/market/clock.js';
import { Simulation } from '../../../tools/market/simulation.js';
import { MAX_ENTRIES_PER_PRODUCT, SlotLog, type SlotHolders } from '../../../tools/market/slot-log.js';

/** The simulator's log of slot holders: one entry per change, at the simulated time it happened, matching the buy box at every moment. */
const simulation = () => new Simulation({ seed: 5, products: 6, competitors: 4, clock: new ManualClock(), tickIntervalMs: 1_000 });

/** The holders a log says held the product's slots at `at`. */
const holdersAt = (entries: readonly SlotHolders[], at: number) => entries.filter((entry) => entry.at <= at).at(-1);

describe('the slot log', () => {
  it('starts with every product line, and after any ticks says who holds each slot now, from when it changed', () => {
    // Arrange
    const sim = simulation();
    const checks: { at: number; plid: number; best: string | null; fastest: string | null }[] = [];

    // Act: after each tick, note the buy box as the storefront would show it.
    for (let tick = 0; tick < 200; tick++) {
      sim.tick(1);
      for (const product of sim.market.products) {
        const box = sim.market.buyBox(product);
        checks.push({ at: sim.clock.now(), plid: product.plid, best: box.bestPrice?.id ?? null, fastest: box.fastestDelivery?.id ?? null });
      }
    }

    // Assert
    const { products } = sim.slotLog.summary();
    expect(Object.keys(products)).toHaveLength(6);
    for (const check of checks) {
      const holders = holdersAt(products[String(check.plid)]!.entries, check.at);
      expect([holders?.best_price, holders?.fastest_delivery]).toEqual([check.best, check.fastest]);
    }
    // Only changes are entries: no two in a row name the same holders.
    for (const { entries } of Object.values(products)) {
      entries
        .slice(1)
        .forEach((entry, i) => expect([entry.best_price, entry.fastest_delivery]).not.toEqual([entries[i]!.best_price, entries[i]!.fastest_delivery]));
    }
  });

  it('notes a change of the own offer when it is made', () => {
    // Arrange: the own offer priced far above everyone, then far below.
    const sim = simulation();
    const [product] = sim.market.products;
    const own = String(product!.own.offer_id);
    (sim.clock as ManualClock).advance(5_000);
    sim.updateOwnOffer(product!, { selling_price: product!.own.rrp }, { via: 'patch' });
    (sim.clock as ManualClock).advance(5_000);

    // Act
    sim.updateOwnOffer(product!, { selling_price: 1 }, { via: 'patch' });

    // Assert
    const entries = sim.slotLog.summary().products[String(product!.plid)]!.entries;
    expect(entries.at(-1)).toMatchObject({ at: sim.clock.now(), best_price: own });
    expect(holdersAt(entries, sim.clock.now() - 1)?.best_price).not.toBe(own);
  });

  it('keeps the latest changes of each product line and counts those it forgot', () => {
    const sim = simulation();
    const log = new SlotLog();
    const [product] = sim.market.products;
    for (let n = 0; n < MAX_ENTRIES_PER_PRODUCT + 10; n++) {
      sim.updateOwnOffer(product!, { selling_price: n % 2 === 0 ? 1 : product!.own.rrp }, { via: 'patch' });
      log.observe(sim.market, n, [product!]);
    }
    const kept = log.summary().products[String(product!.plid)]!;
    expect(kept.entries).toHaveLength(MAX_ENTRIES_PER_PRODUCT);
    expect(kept.dropped).toBe(10);
    expect(kept.entries[0]!.at).toBe(10);
  });
});
