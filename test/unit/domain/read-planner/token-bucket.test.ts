import fc from 'fast-check';
import { fullBucket, nextTokenAt, refilled, take, type BucketSettings } from '../../../../lambdas/domain/read-planner/token-bucket.js';
import { fcParameters, fcRuns } from '../../../support/seed.js';

describe('the read budget (token bucket)', () => {
  it('never grants more than the capacity plus the rate over any window, whatever the readers ask and however the clock steps', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.record({ step: fc.integer({ min: -50, max: 2_000 }), wanted: fc.integer({ min: 0, max: 50 }) }), { minLength: 1, maxLength: 200 }),
        (ratePerSecond, capacity, calls) => {
          const settings: BucketSettings = { ratePerSecond, capacity };
          let bucket = fullBucket(0, settings);
          let now = 0;
          const grants: { at: number; granted: number }[] = [];
          for (const call of calls) {
            now += call.step;
            const result = take(bucket, now, call.wanted, settings);
            expect(result.granted).toBeGreaterThanOrEqual(0);
            expect(result.granted).toBeLessThanOrEqual(call.wanted);
            expect(result.bucket.tokens).toBeGreaterThanOrEqual(-1e-9);
            expect(result.bucket.tokens).toBeLessThanOrEqual(capacity);
            bucket = result.bucket;
            grants.push({ at: bucket.at, granted: result.granted });
          }
          // Every window [from, to] of the bucket's own clock: at most capacity + rate * length.
          for (let i = 0; i < grants.length; i++) {
            let sum = 0;
            for (let j = i; j < grants.length; j++) {
              sum += grants[j]!.granted;
              expect(sum).toBeLessThanOrEqual(capacity + (ratePerSecond * (grants[j]!.at - grants[i]!.at)) / 1000 + 1e-6);
            }
          }
        },
      ),
      fcParameters({ numRuns: fcRuns(200, 1_000) }),
    );
  });

  it('keeps one read a second at most the rate when it holds one token (the stage setting)', () => {
    const settings = { ratePerSecond: 10, capacity: 1 };
    let bucket = fullBucket(0, settings);
    const times: number[] = [];
    for (let i = 0; i < 100; i++) {
      const at = nextTokenAt(bucket, 0, settings);
      bucket = take(bucket, at, 1, settings).bucket;
      times.push(at);
    }
    for (let i = 10; i < times.length; i++) expect(times[i]! - times[i - 10]!).toBeGreaterThanOrEqual(1000 - 1e-6);
    expect(times[99]).toBeCloseTo(9_900, 6);
  });

  it('adds nothing and takes nothing back when the clock steps back', () => {
    const settings = { ratePerSecond: 5, capacity: 2 };
    const bucket = { tokens: 0.5, at: 10_000 };
    expect(refilled(bucket, 9_000, settings)).toBe(bucket);
    expect(take(bucket, 9_000, 1, settings)).toEqual({ bucket, granted: 0 });
    expect(nextTokenAt(bucket, 9_000, settings)).toBe(10_100);
  });
});
