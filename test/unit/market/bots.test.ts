import fc from 'fast-check';
import { actBot, type BotConfig } from '../../../tools/market/bots.js';
import type { CompetitorOffer } from '../../../tools/market/catalogue.js';
import { createPrng } from '../../../tools/market/prng.js';

const competitor = (price: number, bot: BotConfig, extra: Partial<CompetitorOffer> = {}): CompetitorOffer => ({
  key: '1-0',
  sku: 'C1',
  seller: { seller_id: 1, display_name: 'Rival', rating_avg: 4, rating_count: 9, is_takealot: false },
  price,
  in_stock: true,
  leadtime_days: 5,
  available: true,
  listed_at: 0,
  bot,
  botState: bot.kind === 'stock_cycle' ? { ticksLeftInPhase: bot.inStockTicks } : {},
  ...extra,
});

describe('fixed bot', () => {
  it('never changes its price whatever the others do', () => {
    const offer = competitor(500, { kind: 'fixed' });
    expect(actBot(offer, { otherPrices: [100, 200], rrp: 999 }, createPrng(1))).toBe(false);
    expect(offer.price).toBe(500);
  });
});

describe('undercutter bot', () => {
  it('goes one step under the lowest other price', () => {
    const offer = competitor(500, { kind: 'undercutter', floor: 300, step: 5 });
    expect(actBot(offer, { otherPrices: [480, 450, 470], rrp: 999 }, createPrng(1))).toBe(true);
    expect(offer.price).toBe(445);
  });

  it('stops at its floor', () => {
    const offer = competitor(500, { kind: 'undercutter', floor: 400, step: 5 });
    actBot(offer, { otherPrices: [350], rrp: 999 }, createPrng(1));
    expect(offer.price).toBe(400);
  });

  it('rises again when the others do, up to the RRP', () => {
    const offer = competitor(300, { kind: 'undercutter', floor: 200, step: 1 });
    actBot(offer, { otherPrices: [700], rrp: 999 }, createPrng(1));
    expect(offer.price).toBe(699);
    actBot(offer, { otherPrices: [5_000], rrp: 999 }, createPrng(1));
    expect(offer.price).toBe(999);
  });

  it('holds its price when alone on the page', () => {
    const offer = competitor(300, { kind: 'undercutter', floor: 200, step: 1 });
    expect(actBot(offer, { otherPrices: [], rrp: 999 }, createPrng(1))).toBe(false);
  });

  it('is never below its floor, whatever the others do', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 2_000 }), { maxLength: 6 }),
        (floor, step, prices) => {
          const offer = competitor(floor + 10, { kind: 'undercutter', floor, step });
          actBot(offer, { otherPrices: prices, rrp: 1_500 }, createPrng(1));
          expect(offer.price).toBeGreaterThanOrEqual(floor);
          expect(Number.isInteger(offer.price)).toBe(true);
        },
      ),
    );
  });
});

describe('random walk bot', () => {
  it('stays within its bounds and moves at most maxStep per tick', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 20 }), (seed, maxStep) => {
        const prng = createPrng(seed);
        const offer = competitor(100, { kind: 'random_walk', min: 90, max: 110, maxStep });
        for (let tick = 0; tick < 50; tick++) {
          const before = offer.price;
          actBot(offer, { otherPrices: [], rrp: 999 }, prng);
          expect(offer.price).toBeGreaterThanOrEqual(90);
          expect(offer.price).toBeLessThanOrEqual(110);
          expect(Math.abs(offer.price - before)).toBeLessThanOrEqual(maxStep);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('does move (a walk that never changes would pass the bounds test too)', () => {
    const prng = createPrng(7);
    const offer = competitor(100, { kind: 'random_walk', min: 50, max: 150, maxStep: 5 });
    const seen = new Set<number>();
    for (let tick = 0; tick < 20; tick++) {
      actBot(offer, { otherPrices: [], rrp: 999 }, prng);
      seen.add(offer.price);
    }
    expect(seen.size).toBeGreaterThan(3);
  });
});

describe('leadtime bot', () => {
  it('keeps its price and its lead time, and is not in stock', () => {
    const offer = competitor(250, { kind: 'leadtime' }, { in_stock: false, leadtime_days: 12 });
    for (let tick = 0; tick < 5; tick++) expect(actBot(offer, { otherPrices: [100], rrp: 999 }, createPrng(tick))).toBe(false);
    expect(offer).toMatchObject({ price: 250, in_stock: false, leadtime_days: 12 });
  });
});

describe('stock cycle bot', () => {
  it('is on the page for inStockTicks ticks, off for outOfStockTicks, and back', () => {
    const offer = competitor(250, { kind: 'stock_cycle', inStockTicks: 3, outOfStockTicks: 2 });
    const availability = Array.from({ length: 10 }, () => {
      actBot(offer, { otherPrices: [], rrp: 999 }, createPrng(1));
      return offer.available ? 'in' : 'out';
    });
    expect(availability).toEqual(['in', 'in', 'out', 'out', 'in', 'in', 'in', 'out', 'out', 'in']);
    expect(offer.price).toBe(250);
  });
});
