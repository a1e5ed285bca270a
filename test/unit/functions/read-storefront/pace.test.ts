import { hostPace } from '../../../../lambdas/functions/read-storefront/pace.js';

describe('hostPace', () => {
  it('spaces the reads of one host, and keeps hosts apart', () => {
    // Prepare
    const pace = hostPace(100);

    // Act: as the reader books, each read after the wait before it
    const waits = [pace.book('a', 1_000), pace.book('a', 1_000), pace.book('a', 1_130), pace.book('b', 1_130), pace.book('a', 1_500)];

    // Assess: the second read waits a spacing, the third what is left of it; another host and a late read wait nothing.
    expect(waits).toEqual([0, 100, 70, 0, 0]);
  });

  it('never waits longer than one spacing when the clock steps back', () => {
    // Prepare: a read booked on a clock five hours ahead
    const pace = hostPace(100);
    pace.book('a', 5 * 3_600_000);

    // Act
    const wait = pace.book('a', 0);

    // Assess
    expect(wait).toBe(100);
  });

  it('keeps each reader its own pace', () => {
    // Prepare
    const first = hostPace(100);
    first.book('a', 1_000);

    // Act & Assess
    expect(hostPace(100).book('a', 1_000)).toBe(0);
  });
});
