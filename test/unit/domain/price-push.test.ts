import fc from 'fast-check';
import {
  breakerTrips,
  breakerWindow,
  breakerWindowsNoted,
  checkSendable,
  intoBounds,
  isSharpDrop,
  nextStep,
  retryDelayMs,
  utcDay,
  type SendBounds,
} from '../../../lambdas/domain/price-push.js';
import { fcParameters, fcRuns } from '../../support/seed.js';

/**
 * What the sender may push (docs/price-sending.md): the send-time check, the capped step, the
 * breaker's arithmetic. The properties run over random prices, bounds, steps and caps, in cents.
 */
const money = (cents: number) => cents / 100;
/** The price a push carries: the capped step toward the target (the plan), brought inside the bounds (the guard). */
const nextPush = (current: number, target: number, limits: SendBounds, cap: number) => intoBounds(nextStep(current, target, limits.step, cap), limits);
const bounds = (overrides: Partial<SendBounds> = {}): SendBounds => ({ min_price: 50, preferred_price: 150, rrp: 200, step: 1, ...overrides });

describe('checkSendable', () => {
  it.each([
    [100, true, undefined],
    [50, true, undefined],
    [150, true, undefined],
    [49, false, 'under the repricer'],
    [151, false, 'over the repricer'],
    [100.5, false, 'not a whole number'],
  ])('%s is sendable: %s', (price, ok, reason) => {
    const check = checkSendable(price, bounds());
    expect(check.ok).toBe(ok);
    if (!check.ok) expect(check.reason).toContain(reason);
  });

  it("refuses a price over the offer's rrp even under the ceiling", () => {
    const check = checkSendable(140, bounds({ rrp: 120 }));
    expect(check).toEqual({ ok: false, reason: "140 is over the offer's rrp 120" });
  });

  it('takes a step of 0.05 as the grid', () => {
    expect(checkSendable(99.95, bounds({ step: 0.05 })).ok).toBe(true);
    expect(checkSendable(99.97, bounds({ step: 0.05 })).ok).toBe(false);
  });
});

describe('the capped step, inside the bounds', () => {
  it('sends the target when the move is within the cap', () => {
    expect(nextPush(100, 85, bounds(), 20)).toBe(85);
    expect(nextPush(100, 120, bounds(), 20)).toBe(120);
  });

  it('moves a bigger drop by the cap, on the grid, and rises the same way', () => {
    expect(nextPush(140, 60, bounds(), 20)).toBe(112);
    expect(nextPush(112, 60, bounds(), 20)).toBe(90);
    expect(nextPush(60, 150, bounds(), 20)).toBe(72);
  });

  it('always moves at least one step, so a small price reaches its target', () => {
    expect(nextPush(3, 1, bounds({ min_price: 1 }), 20)).toBe(2);
  });

  it('brings a price outside the bounds straight back inside, whatever the cap', () => {
    expect(nextPush(400, 150, bounds(), 20)).toBe(150);
    expect(nextPush(10, 50, bounds(), 20)).toBe(50);
  });

  it('never leaves the bounds or the grid, moves toward the target, and within the cap unless the bounds demand more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 1, max: 300_000 }),
        fc.constantFrom(1, 5, 100),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 1_000 }),
        (floorCents, spread, currentCents, stepCents, cap, targetOffset) => {
          const step = money(stepCents);
          const floor = Math.ceil(floorCents / stepCents) * stepCents;
          const ceiling = Math.floor((floorCents + spread) / stepCents) * stepCents;
          fc.pre(floor <= ceiling);
          const limits = { min_price: money(floorCents), preferred_price: money(floorCents + spread), rrp: undefined, step };
          const target = money(Math.min(ceiling, floor + targetOffset * stepCents));
          const current = money(currentCents);
          const push = nextPush(current, target, limits, cap);
          expect(checkSendable(push, limits).ok).toBe(true);
          const [p, t, c] = [Math.round(push * 100), Math.round(target * 100), currentCents];
          // Toward the target, never past it (unless bringing an out-of-bounds price back).
          if (c >= floor && c <= ceiling) {
            expect(Math.abs(t - p)).toBeLessThanOrEqual(Math.abs(t - c));
            const moved = Math.abs(p - c);
            expect(moved <= Math.floor((c * cap) / 100) || moved <= stepCents || p === t).toBe(true);
          }
        },
      ),
      fcParameters({ numRuns: fcRuns(300, 3_000) }),
    );
  });
});

describe('the circuit breaker', () => {
  it('counts a drop of more than the percentage as sharp', () => {
    expect(isSharpDrop(100, 90, 10)).toBe(false);
    expect(isSharpDrop(100, 89, 10)).toBe(true);
    expect(isSharpDrop(100, 120, 10)).toBe(false);
  });

  it('trips above the share of repriced offers, never on one offer alone', () => {
    expect(breakerTrips(3, 10, 30)).toBe(false);
    expect(breakerTrips(4, 10, 30)).toBe(true);
    expect(breakerTrips(1, 1, 30)).toBe(false);
    expect(breakerTrips(2, 2, 30)).toBe(true);
    expect(breakerTrips(5, 5, 100)).toBe(false);
  });

  it('puts moments into windows of the given minutes', () => {
    const t = Date.parse('2026-11-25T10:00:00.000Z');
    expect(breakerWindow(t, 15)).toBe(breakerWindow(t + 14 * 60_000, 15));
    expect(breakerWindow(t, 15)).not.toBe(breakerWindow(t + 15 * 60_000, 15));
  });

  it('carries a drop into the next window, so drops either side of a boundary count together', () => {
    const before = Date.parse('2026-11-25T10:14:59.000Z');
    const after = Date.parse('2026-11-25T10:15:01.000Z');
    expect(breakerWindowsNoted(before, 15).carried).toBe(breakerWindowsNoted(after, 15).counted);
    expect(breakerWindowsNoted(after, 15).counted).toBe(breakerWindow(after, 15));
  });
});

describe('retries and days', () => {
  it('doubles the wait from the base up to the most', () => {
    expect([1, 2, 3, 10].map((n) => retryDelayMs(n, 30_000, 30 * 60_000))).toEqual([30_000, 60_000, 120_000, 1_800_000]);
  });

  it('counts pushes per UTC day', () => {
    expect(utcDay(Date.parse('2026-11-25T23:59:59.999Z'))).toBe('2026-11-25');
    expect(utcDay(Date.parse('2026-11-26T00:00:00.000Z'))).toBe('2026-11-26');
  });
});
