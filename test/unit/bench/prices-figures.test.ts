import {
  botFloor,
  checkPrices,
  exactlyOnce,
  floorGroup,
  groupShares,
  reactionsOf,
  spread,
  targetFor,
  type PriceBounds,
  type ReactionInput,
} from '../../../tools/bench/prices-figures.js';
import { pricesSettings } from '../../../tools/bench/prices-settings.js';

const bounds: PriceBounds = { floor: 80, ceiling: 120, rrp: 150, step: 1 };

describe('prices benchmark: spread', () => {
  it('gives p50, p99 and max in seconds, and NaN for nothing', () => {
    expect(spread([3_000, 1_000, 2_000])).toEqual({ count: 3, p50: 2, p99: 3, max: 3 });
    expect(spread([])).toMatchObject({ count: 0, p50: NaN });
  });
});

describe('prices benchmark: reactions', () => {
  const input = (overrides: Partial<ReactionInput>): ReactionInput => ({
    lowest: [{ at: 0, price: 110 }],
    reads: [],
    applied: [],
    startPrice: 109,
    bounds,
    ...overrides,
  });

  it('times a competitor move from the move to the read that showed it to the price applied after that read', () => {
    const tally = reactionsOf(
      input({
        lowest: [
          { at: 0, price: 110 },
          { at: 1_500, price: 100 },
        ],
        reads: [1_000, 4_000, 9_000],
        applied: [{ at: 6_500, price: 99 }],
      }),
      { from: 500, to: 10_000 },
    );
    expect(tally.reactions).toEqual([{ changedAt: 1_500, seenAt: 4_000, appliedAt: 6_500 }]);
    expect(tally).toMatchObject({ notNeeded: 0, missed: 0, unresolved: 0, afterNextRead: 0 });
  });

  it('counts a read whose target is the own price already as needing nothing, and a move made on the read’s millisecond as unseen by it', () => {
    const tally = reactionsOf(
      input({
        lowest: [
          { at: 0, price: 110 },
          { at: 2_000, price: 90 },
          { at: 4_000, price: 70 },
        ],
        reads: [2_000, 3_000, 4_001],
        applied: [{ at: 2_500, price: 89 }],
      }),
      { from: 0, to: 10_000 },
    );
    // The read at 2 000 ms predates the move logged then; at 3 000 ms the own price is already 89.
    // At 4 001 ms 70 is under the floor: the target is the floor (80), not yet applied, and no read follows.
    expect(tally.reactions).toEqual([]);
    expect(tally).toMatchObject({ notNeeded: 1, missed: 0, unresolved: 1 });
  });

  it('times a read answered only after the page’s next read to that answer, and counts it; one never answered is missed', () => {
    const late = reactionsOf(
      input({
        lowest: [
          { at: 0, price: 110 },
          { at: 100, price: 100 },
        ],
        reads: [1_000, 5_000],
        applied: [{ at: 6_000, price: 99 }],
      }),
      { from: 0, to: 10_000 },
    );
    expect(late).toMatchObject({ reactions: [{ changedAt: 100, seenAt: 1_000, appliedAt: 6_000 }], afterNextRead: 1, missed: 0 });
    const never = reactionsOf(
      input({
        lowest: [
          { at: 0, price: 110 },
          { at: 100, price: 100 },
        ],
        reads: [1_000, 5_000],
      }),
      { from: 0, to: 2_000 },
    );
    expect(never).toMatchObject({ reactions: [], missed: 1, unresolved: 0 });
  });

  it('uses the engine’s target: under the lowest by a step, within floor and ceiling', () => {
    expect(targetFor(100, bounds)).toBe(99);
    expect(targetFor(50, bounds)).toBe(80);
    expect(targetFor(500, bounds)).toBe(120);
    expect(targetFor(undefined, bounds)).toBe(120);
  });
});

describe('prices benchmark: checks', () => {
  it('finds every price under the floor, over the ceiling or the RRP, or off the grid', () => {
    const checks = checkPrices(
      [
        { offerId: 1, price: 79 },
        { offerId: 1, price: 100 },
        { offerId: 1, price: 121 },
        { offerId: 1, price: 99.5 },
        { offerId: 2, price: 10 },
      ],
      new Map([[1, { ...bounds, ceiling: 200 }]]),
    );
    expect(checks).toEqual({ checked: 5, belowFloor: 1, aboveCeiling: 0, aboveRrp: 0, offGrid: 1, unknownOffer: 1 });
    expect(checkPrices([{ offerId: 1, price: 151 }], new Map([[1, { ...bounds, ceiling: 200 }]]))).toMatchObject({ aboveRrp: 1, aboveCeiling: 0 });
    expect(checkPrices([{ offerId: 1, price: 121 }], new Map([[1, bounds]]))).toMatchObject({ aboveCeiling: 1 });
  });

  it('matches decisions with the price log: unfinished ones, applied ones never accepted, prices without a decision', () => {
    const figures = exactlyOnce(
      [
        { offerId: 'A', status: 'applied', sentPrice: 99, createdAt: 1_000 },
        { offerId: 'A', status: 'superseded', sentPrice: null, createdAt: 2_000 },
        { offerId: 'B', status: 'applied', sentPrice: 50, createdAt: 1_000 },
        { offerId: 'C', status: 'pending', sentPrice: null, createdAt: 1_000 },
        // Applied without a push: the offer already had the price.
        { offerId: 'D', status: 'applied', sentPrice: null, createdAt: 1_000 },
      ],
      new Map([
        [
          'A',
          [
            { at: 1_500, price: 99 },
            { at: 1_600, price: 99 },
          ],
        ],
        ['B', [{ at: 900, price: 50 }]],
      ]),
    );
    expect(figures).toEqual({
      decisions: 5,
      byStatus: { applied: 3, superseded: 1, pending: 1 },
      notTerminal: 1,
      // B's price was accepted before B's decision was made.
      appliedNotInLog: 1,
      unattributed: 1,
      extraPushes: 1,
    });
  });
});

describe('prices benchmark: outcome', () => {
  const bots = [
    { price: 100, bot: { kind: 'undercutter' as const, floor: 85, step: 1 } },
    { price: 105, bot: { kind: 'random_walk' as const, min: 90, max: 120, maxStep: 2 } },
    { price: 95, bot: { kind: 'fixed' as const } },
  ];

  it('groups a product by the demo floor against the bots’ floors and start prices', () => {
    expect(bots.map(botFloor)).toEqual([85, 90, 95]);
    expect(floorGroup(84, bots)).toBe('below');
    expect(floorGroup(85, bots)).toBe('between');
    expect(floorGroup(95, bots)).toBe('above');
  });

  it('adds up the samples per group', () => {
    const shares = groupShares([
      { group: 'below', tally: { samples: 10, demo: 8, static: 1 } },
      { group: 'below', tally: { samples: 10, demo: 2, static: 5 } },
      { group: 'above', tally: { samples: 4, demo: 0, static: 1 } },
    ]);
    expect(shares).toEqual([
      { group: 'below', products: 2, samples: 20, demoShare: 0.5, staticShare: 0.3 },
      { group: 'between', products: 0, samples: 0, demoShare: NaN, staticShare: NaN },
      { group: 'above', products: 1, samples: 4, demoShare: 0, staticShare: 0.25 },
    ]);
  });
});

describe('prices benchmark: settings', () => {
  it('reads --quick, --skip and the numeric flags, and refuses the rest', () => {
    expect(pricesSettings([])).toMatchObject({ quick: false, products: 1_000 });
    const quick = pricesSettings(['--quick', '--skip', 'polling,faults', '--seconds', '90']);
    expect(quick).toMatchObject({ quick: true, products: 100, seconds: 90 });
    expect([...quick.skip]).toEqual(['polling', 'faults']);
    expect(() => pricesSettings(['--skip', 'cost'])).toThrow('--skip');
    expect(() => pricesSettings(['--products', '0'])).toThrow('--products');
    expect(() => pricesSettings(['--speed', '1'])).toThrow('Unknown option');
  });
});
