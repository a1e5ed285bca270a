import { jest } from '@jest/globals';
import { installClock, installedClock, now, nowIso, wallClock } from '../../../lambdas/config/clock.js';
import { OffsetClock } from '../../../tools/local/clock.js';

const HOUR = 3_600_000;

describe("the service's clock", () => {
  it('is the wall clock by default, read at each call', () => {
    const spy = jest.spyOn(Date, 'now').mockReturnValue(Date.UTC(2030, 0, 1));
    try {
      expect([now(), nowIso(), wallClock.now()]).toEqual([Date.UTC(2030, 0, 1), '2030-01-01T00:00:00.000Z', Date.UTC(2030, 0, 1)]);
    } finally {
      spy.mockRestore();
    }
  });

  it('is the time the service reads once installed, and the wall clock again once taken back', () => {
    const clock = new OffsetClock();
    const restore = installClock(clock);
    try {
      clock.advance(5 * HOUR);
      expect(now() - Date.now()).toBeGreaterThan(5 * HOUR - 1_000);
      expect(Date.parse(nowIso()) - Date.now()).toBeGreaterThan(5 * HOUR - 1_000);
      expect(installedClock.now() - Date.now()).toBeGreaterThan(5 * HOUR - 1_000);
    } finally {
      restore();
    }
    expect(Math.abs(now() - Date.now())).toBeLessThan(1_000);
  });
});
