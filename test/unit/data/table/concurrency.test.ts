import { mapLimit } from '../../../../lambdas/data/table/concurrency.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('mapLimit', () => {
  it('keeps the order of the items and at most the limit in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapLimit(
      [5, 4, 3, 2, 1, 0],
      async (n) => {
        inFlight++;
        most = Math.max(most, inFlight);
        for (let i = 0; i < n; i++) await tick();
        inFlight--;
        return n * 10;
      },
      2,
    );
    expect(results).toEqual([50, 40, 30, 20, 10, 0]);
    expect(most).toBe(2);
  });

  it('starts no further item after a failure', async () => {
    const started: number[] = [];
    const run = mapLimit(
      [0, 1, 2, 3, 4, 5, 6, 7],
      async (n) => {
        started.push(n);
        await tick();
        if (n === 1) throw new Error('refused');
        await tick();
        return n;
      },
      2,
    );
    await expect(run).rejects.toThrow('refused');
    // Let anything still able to start do so.
    for (let i = 0; i < 10; i++) await tick();
    expect(started).toEqual([0, 1]);
  });
});
