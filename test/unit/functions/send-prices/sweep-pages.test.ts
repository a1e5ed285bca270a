import { PRICE_SENDING } from '../../../../lambdas/config/price-sending.js';
import { sweepPagesOf } from '../../../../lambdas/functions/send-prices/worker.js';

/**
 * The sweep's pages (docs/price-sending.md, "The sender"): every page when there are few, else
 * a bounded share from a page that moves on each minute, so no change waits behind older ones
 * that cannot go.
 */
const MINUTE = 60_000;
const { sweepPageSize: size, sweepPagesPerRun: perRun } = PRICE_SENDING;

describe('the pages a sweep takes', () => {
  it('takes every page when there are no more than a run takes', () => {
    expect(sweepPagesOf(0, 0)).toEqual([]);
    expect(sweepPagesOf(1, 7 * MINUTE)).toEqual([0]);
    expect(sweepPagesOf(size * perRun, 7 * MINUTE)).toEqual([...Array(perRun).keys()]);
  });

  it('takes a bounded share from a page that moves on, reaching every page within a few minutes', () => {
    const pages = 3 * perRun + 2;
    const seen = new Set<number>();
    for (let minute = 0; minute < Math.ceil(pages / perRun) + 1; minute++) {
      const taken = sweepPagesOf(pages * size, minute * MINUTE);
      expect(taken).toHaveLength(perRun);
      for (const page of taken) seen.add(page);
    }
    expect(seen.size).toBe(pages);
  });
});
