import fc from 'fast-check';
import {
  MAX_STATS_RANGE_DAYS,
  repricerStatsOf,
  statsWindowOf,
  type OfferState,
  type OfferTimeline,
  type StatsInput,
} from '../../../lambdas/domain/repricer-stats.js';
import { PRICE_CHANGE_REASON_VALUES, PRICE_CHANGE_STATUSES } from '../../../lambdas/domain/records.js';
import { fcParameters, fcRuns } from '../../support/seed.js';

/** The arithmetic of GET /v1/repricers/{id}/stats: time shares from recorded states, clipped to the window. */
const H = 3_600_000;
const T0 = Date.parse('2026-01-14T00:00:00.000Z');
const at = (hours: number) => T0 + hours * H;
const state = (hours: number, overrides: Partial<OfferState> = {}): OfferState => ({
  at: at(hours),
  present: true,
  winning: false,
  winningDelivery: false,
  price: 50,
  ...overrides,
});
const zeros = (values: readonly string[]) => Object.fromEntries(values.map((value) => [value, 0]));
const input = (timelines: OfferTimeline[], overrides: Partial<StatsInput> = {}): StatsInput => ({
  repricerId: 7,
  minPrice: 40,
  window: { from: at(0), to: at(10) },
  timelines,
  priceChanges: [],
  ...overrides,
});

describe('repricerStatsOf', () => {
  it('measures each slot from the state before the window and the states inside it, clipped to the window', () => {
    // Arrange: Best Price from before the window until 4 h, again from 8 h; Fastest Delivery from 2 h to 6 h.
    const timeline: OfferTimeline = {
      offerId: 'O-1',
      before: state(-5, { winning: true }),
      within: [state(2, { winning: true, winningDelivery: true }), state(4, { winningDelivery: true }), state(6), state(8, { winning: true })],
    };

    // Act
    const stats = repricerStatsOf(input([timeline]));

    // Assert
    expect(stats).toMatchObject({
      observed_seconds: 36_000,
      best_price: { seconds: 6 * 3600, share: 0.6 },
      fastest_delivery: { seconds: 4 * 3600, share: 0.4 },
      offers: [{ offer_id: 'O-1', observed_seconds: 36_000, changes: 4 }],
    });
  });

  it('counts only observed time: nothing before the first state, nothing after the offer left', () => {
    // Arrange: first seen at 2 h (winning), gone at 7 h.
    const timeline: OfferTimeline = { offerId: 'O-1', before: undefined, within: [state(2, { winning: true }), state(7, { present: false })] };

    // Act
    const stats = repricerStatsOf(input([timeline]));

    // Assert
    expect(stats.observed_seconds).toBe(5 * 3600);
    expect(stats.best_price).toEqual({ seconds: 5 * 3600, share: 1 });
  });

  it('answers null shares and no average when nothing was observed', () => {
    const stats = repricerStatsOf(input([{ offerId: 'O-1', before: undefined, within: [] }]));
    expect(stats).toMatchObject({ observed_seconds: 0, best_price: { seconds: 0, share: null }, average_over_floor: null });
  });

  it('measures time at the floor and the time-weighted average over it, to the cent', () => {
    // Arrange: 40 (the floor) for 3 h, 45 for 6 h, 39.99 (under it) for 1 h.
    const timeline: OfferTimeline = { offerId: 'O-1', before: state(-1, { price: 40 }), within: [state(3, { price: 45 }), state(9, { price: 39.99 })] };

    // Act
    const stats = repricerStatsOf(input([timeline]));

    // Assert: (0 * 3 + 5 * 6 - 0.01 * 1) / 10 = 2.999 -> 3.00
    expect(stats.at_floor).toEqual({ seconds: 4 * 3600, share: 0.4 });
    expect(stats.average_over_floor).toBe(3);
  });

  it('holds a slot when any own offer holds it, and weighs every offer alike in the average', () => {
    const a: OfferTimeline = { offerId: 'A', before: state(-1, { winning: true, price: 50 }), within: [state(5, { price: 50 })] };
    const b: OfferTimeline = { offerId: 'B', before: undefined, within: [state(3, { winning: true, price: 60 }), state(6, { price: 60 })] };

    const stats = repricerStatsOf(input([b, a]));

    expect(stats.best_price).toEqual({ seconds: 6 * 3600, share: 0.6 });
    expect(stats.offers.map((offer) => [offer.offer_id, offer.best_price.seconds])).toEqual([
      ['A', 5 * 3600],
      ['B', 3 * 3600],
    ]);
    // (10 h at +10 and 7 h at +20) / 17 h
    expect(stats.average_over_floor).toBe(Math.round(((10 * 10 + 7 * 20) / 17) * 100) / 100);
  });

  it('counts the price changes created in the window by status and reason, every value named', () => {
    const stats = repricerStatsOf(
      input([], {
        priceChanges: [
          { status: 'applied', reason: 'undercut', created_at: new Date(at(1)).toISOString() },
          { status: 'failed', reason: 'floor', created_at: new Date(at(2)).toISOString() },
          { status: 'applied', reason: 'undercut', created_at: new Date(at(10)).toISOString() },
          { status: 'applied', reason: 'undercut', created_at: new Date(at(-1)).toISOString() },
        ],
      }),
    );
    expect(stats.price_changes).toEqual({
      total: 2,
      // Every status and reason there is, those not seen at 0.
      by_status: { ...zeros(PRICE_CHANGE_STATUSES), applied: 1, failed: 1 },
      by_reason: { ...zeros(PRICE_CHANGE_REASON_VALUES), undercut: 1, floor: 1 },
    });
  });

  /**
   * Against a reference that looks at every second of a short window: the time shares of the
   * stretches equal a count of the seconds in which the offer (any offer) held the slot.
   */
  it('agrees with a second-by-second count for any states and window', () => {
    const stateArb = (offset: number) =>
      fc.record({
        at: fc.integer({ min: -20, max: 120 }).map((s) => T0 + s * 1000 + offset),
        present: fc.boolean(),
        winning: fc.boolean(),
        winningDelivery: fc.boolean(),
        price: fc.integer({ min: 3_900, max: 4_200 }).map((cents) => cents / 100),
      });
    const timelineArb = (offerId: string, offset: number) =>
      fc.array(stateArb(offset), { maxLength: 8 }).map((states): OfferTimeline => {
        const sorted = [...new Map(states.map((s) => [s.at, s])).values()].sort((x, y) => x.at - y.at);
        const before = sorted.filter((s) => s.at <= T0).at(-1);
        return { offerId, before, within: sorted.filter((s) => s.at > T0) };
      });
    fc.assert(
      fc.property(timelineArb('A', 0), timelineArb('B', 0), fc.integer({ min: 1, max: 100 }), (a, b, length) => {
        const window = { from: T0, to: T0 + length * 1000 };
        const stats = repricerStatsOf(input([a, b], { window }));
        const stateAt = (timeline: OfferTimeline, t: number) =>
          [...(timeline.before ? [timeline.before] : []), ...timeline.within].filter((s) => s.at <= t).at(-1);
        let observed = 0;
        let held = 0;
        let atFloor = 0;
        for (let t = window.from; t < window.to; t += 1000) {
          const known = [stateAt(a, t), stateAt(b, t)].filter((s): s is OfferState => s?.present === true);
          if (known.length === 0) continue;
          observed++;
          if (known.some((s) => s.winning)) held++;
          if (known.some((s) => s.price <= 40)) atFloor++;
        }
        expect(stats.observed_seconds).toBe(observed);
        expect(stats.best_price.seconds).toBe(held);
        expect(stats.at_floor.seconds).toBe(atFloor);
        expect(stats.best_price.share).toBe(observed === 0 ? null : held / observed);
      }),
      fcParameters({ numRuns: fcRuns(200, 1000) }),
    );
  });
});

describe('statsWindowOf', () => {
  const now = at(100);

  it('defaults to the day before now', () => {
    expect(statsWindowOf({}, now)).toEqual({ ok: true, window: { from: now - 24 * H, to: now } });
  });

  it('cuts the window at now', () => {
    expect(statsWindowOf({ from: new Date(at(99)).toISOString(), to: new Date(at(200)).toISOString() }, now)).toEqual({
      ok: true,
      window: { from: at(99), to: now },
    });
  });

  it.each([
    ['to not after from', { from: new Date(at(5)).toISOString(), to: new Date(at(5)).toISOString() }, 'to'],
    ['a range too long', { from: new Date(at(99) - MAX_STATS_RANGE_DAYS * 24 * H - 1).toISOString(), to: new Date(at(99)).toISOString() }, 'from'],
    ['a start in the future', { from: new Date(at(101)).toISOString(), to: new Date(at(102)).toISOString() }, 'from'],
  ])('refuses %s, naming the parameter', (_case, query, field) => {
    expect(statsWindowOf(query, now)).toMatchObject({ ok: false, field });
  });
});
