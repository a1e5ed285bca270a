import fc from 'fast-check';
import { READ_PLANNER, type ReadPlannerSettings } from '../../../../lambdas/config/read-planner.js';
import { buyBoxContested, lookInterval, urgencyKey } from '../../../../lambdas/domain/read-planner/next-look.js';
import { LOOK_REASONS, reasonNames } from '../../../../lambdas/domain/read-planner/reasons.js';
import {
  afterLook,
  broughtForward,
  lookRequesters,
  newWatch,
  nextLookAt,
  nextLookReasons,
  withoutWatcher,
  withWatcher,
  type VariantWatch,
} from '../../../../lambdas/domain/read-planner/watch-state.js';
import { fcParameters, fcRuns } from '../../../support/seed.js';

const S: ReadPlannerSettings = READ_PLANNER;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** A page looked at every `gapMs` from 0, `moves` telling which looks saw a move. */
const history = (watch: VariantWatch, gapMs: number, moves: readonly boolean[], contested = false): VariantWatch =>
  moves.reduce((w, moved, i) => afterLook(w, { at: (i + 1) * gapMs, moved, contested }, S), afterLook(watch, { at: 0, moved: false, contested }, S));

const intervalOf = (watch: VariantWatch): number => watch.scheduledAt - watch.lastLookAt!;

const repriced = newWatch('PLID1', [{ tenant: 'a', repriced: true }], 0);
const watched = newWatch('PLID1', [{ tenant: 'a', repriced: false }], 0);

describe('the next-look rule', () => {
  it('looks at a page never read at once', () => {
    expect(nextLookAt(newWatch('PLID1', [{ tenant: 'a', repriced: false }], 5_000))).toBe(5_000);
    expect(reasonNames(nextLookReasons(repriced))).toEqual(['new']);
  });

  it('stays between the floor and the ceiling whatever the market did', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 6 * HOUR }),
        fc.array(fc.boolean(), { maxLength: 40 }),
        (isRepriced, contested, gap, moves) => {
          const watch = history(newWatch('P', [{ tenant: 'a', repriced: isRepriced }], 0), gap, moves, contested);
          const interval = intervalOf(watch);
          expect(interval).toBeGreaterThanOrEqual(S.floorSeconds * SECOND);
          expect(interval).toBeLessThanOrEqual((isRepriced ? S.repricedCeilingSeconds : S.ceilingSeconds) * SECOND);
        },
      ),
      fcParameters({ numRuns: fcRuns(200, 1_000) }),
    );
  });

  it('looks at a repriced page sooner than a watched one, and a contested one sooner still, from the same history', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10 * SECOND, max: 2 * HOUR }), fc.array(fc.boolean(), { maxLength: 30 }), (gap, moves) => {
        const plain = intervalOf(history(watched, gap, moves));
        const priced = intervalOf(history(repriced, gap, moves));
        const contested = intervalOf(history(repriced, gap, moves, true));
        expect(priced).toBeLessThanOrEqual(plain);
        expect(contested).toBeLessThanOrEqual(priced);
      }),
      fcParameters({ numRuns: fcRuns(200, 1_000) }),
    );
  });

  it('reads a market that moves at every look at the floor, and backs off to hours where nothing moved for days', () => {
    const moving = history(
      repriced,
      MINUTE,
      Array.from({ length: 30 }, () => true),
    );
    expect(intervalOf(moving)).toBe(S.floorSeconds * SECOND);
    expect(reasonNames(moving.scheduledReasons)).toEqual(['repriced', 'moving']);
    const quiet = history(
      repriced,
      2 * HOUR,
      Array.from({ length: 36 }, () => false),
    );
    expect(intervalOf(quiet)).toBeGreaterThanOrEqual(2 * HOUR);
    expect(reasonNames(quiet.scheduledReasons)).toEqual(['repriced']);
    const quietWatched = history(
      watched,
      6 * HOUR,
      Array.from({ length: 12 }, () => false),
    );
    expect(intervalOf(quietWatched)).toBe(S.ceilingSeconds * SECOND);
  });

  it('backs off step by step while nothing moves, and comes back when the market moves again', () => {
    let watch = history(
      repriced,
      MINUTE,
      Array.from({ length: 20 }, () => true),
    );
    const intervals: number[] = [];
    while (watch.lastLookAt! < 2 * 24 * HOUR) {
      watch = afterLook(watch, { at: watch.scheduledAt, moved: false, contested: false }, S);
      intervals.push(intervalOf(watch));
    }
    for (let i = 1; i < intervals.length; i++) expect(intervals[i]).toBeGreaterThanOrEqual(intervals[i - 1]! - 1);
    expect(intervals[0]).toBeLessThan(2 * MINUTE);
    expect(intervals.at(-1)).toBeGreaterThanOrEqual(HOUR);
    // A market that starts moving again halves the gap on each look that saw a move.
    for (let i = 0; i < 3; i++) watch = afterLook(watch, { at: watch.scheduledAt, moved: true, contested: false }, S);
    expect(intervalOf(watch)).toBeLessThanOrEqual(intervals.at(-1)! / 8 + 1);
  });

  it('brings a look forward for an event or a sync, never closer than the floor to the last look, and merges the reasons', () => {
    const looked = afterLook(repriced, { at: 0, moved: false, contested: false }, S);
    const event = broughtForward(looked, { reason: 'event', tenant: 'a', at: 10 * SECOND }, S);
    expect(nextLookAt(event)).toBe(S.floorSeconds * SECOND);
    const both = broughtForward(event, { reason: 'sync', tenant: 'b', at: 5 * MINUTE }, S);
    expect(nextLookAt(both)).toBe(S.floorSeconds * SECOND);
    expect(reasonNames(nextLookReasons(both))).toEqual(expect.arrayContaining(['event', 'sync']));
    expect(both.forwardBy).toEqual(['a', 'b']);
    // Brought forward, the look is for those who asked; once the schedule's own look is due, for every watcher.
    expect(lookRequesters(both, S.floorSeconds * SECOND)).toEqual(['a', 'b']);
    expect(lookRequesters(both, looked.scheduledAt)).toEqual(['a']);
  });

  it('settles every reason with the look that served them', () => {
    const looked = afterLook(repriced, { at: 0, moved: false, contested: false }, S);
    const event = broughtForward(looked, { reason: 'event', tenant: 'a', at: MINUTE }, S);
    const after = afterLook(event, { at: MINUTE, moved: true, contested: false }, S);
    expect(after.forwardAt).toBeNull();
    expect(after.forwardBy).toEqual([]);
    expect(nextLookAt(after)).toBe(after.scheduledAt);
  });

  it('never postpones a planned look when a tenant starts watching, and looks sooner when one starts repricing', () => {
    const looked = afterLook(watched, { at: 0, moved: false, contested: false }, S);
    const more = withWatcher(looked, { tenant: 'b', repriced: false }, S);
    expect(more.scheduledAt).toBe(looked.scheduledAt);
    const pricing = withWatcher(looked, { tenant: 'b', repriced: true }, S);
    expect(pricing.scheduledAt).toBeLessThan(looked.scheduledAt);
    expect(reasonNames(pricing.scheduledReasons)).toContain('repriced');
  });

  it('drops a brought-forward look whose only asker left, and gives a page nobody watches no reason', () => {
    const looked = afterLook(
      newWatch(
        'P',
        [
          { tenant: 'a', repriced: false },
          { tenant: 'b', repriced: true },
        ],
        0,
      ),
      { at: 0, moved: false, contested: false },
      S,
    );
    const event = broughtForward(looked, { reason: 'event', tenant: 'b', at: MINUTE }, S);
    const left = withoutWatcher(event, 'b', S);
    expect(left.forwardAt).toBeNull();
    const nobody = withoutWatcher(left, 'a', S);
    expect(nobody.scheduledReasons).toBe(0);
    expect(lookInterval(nobody, S).reasons).toBe(0);
  });

  it('orders due looks by when they would miss a second look, events first', () => {
    const fast = { lastLookAt: 0, scheduledAt: MINUTE, forwardAt: null };
    const slow = { lastLookAt: 0, scheduledAt: HOUR, forwardAt: null };
    expect(urgencyKey(fast)).toBe(2 * MINUTE);
    expect(urgencyKey(slow)).toBe(2 * HOUR);
    expect(urgencyKey({ ...slow, forwardAt: 30 * SECOND })).toBe(30 * SECOND);
  });

  it.each([
    [[100], 101, true],
    [[100], 103, false],
    [[120, 98.5], 100, true],
    [[100], null, false],
  ])('calls own prices %j against a winning price of %j contested: %j', (prices, winning, expected) => {
    expect(buyBoxContested(prices, winning, S.contestedWithin)).toBe(expected);
  });

  it('keeps the reasons as bits that merge', () => {
    expect(reasonNames(LOOK_REASONS.event | LOOK_REASONS.repriced | LOOK_REASONS.event)).toEqual(['repriced', 'event']);
  });
});
