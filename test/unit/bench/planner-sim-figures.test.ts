import { AgeHistogram, fairShares, jainIndex, shareIndex } from '../../../tools/bench/planner-sim-figures.js';

describe('read planner simulation figures', () => {
  it("gives Jain's index 1 for equal values and 1/n when one holds everything", () => {
    expect(jainIndex([3, 3, 3, 3])).toBe(1);
    expect(jainIndex([8, 0, 0, 0])).toBe(0.25);
  });

  it('shares capacity max-min fairly: no tenant above its demand, the rest split by weight', () => {
    expect(fairShares([1, 10, 10], [1, 1, 1], 9)).toEqual([1, 4, 4]);
    expect(fairShares([100, 100], [2, 1], 30)).toEqual([20, 10]);
    expect(fairShares([0, 5], [1, 1], 10)).toEqual([0, 5]);
  });

  it('measures reads against fair shares: FIFO by catalogue size scores low, equal shares score 1', () => {
    const demands = [10, 100, 1_000];
    expect(shareIndex(demands, [10, 40, 40], [1, 1, 1])).toBeCloseTo(1, 9);
    // Served in proportion to demand (one queue in arrival order): 0.8, 8.1, 81.1 of 90.
    expect(shareIndex(demands, [0.81, 8.1, 81.1], [1, 1, 1])).toBeLessThan(0.6);
  });

  it('reads shares and quantiles from its bins', () => {
    const ages = new AgeHistogram();
    for (let s = 0; s < 100; s++) ages.add(s * 10);
    expect(ages.within(120)).toBeCloseTo(0.12, 9);
    expect(ages.within(600)).toBeCloseTo(0.6, 9);
    expect(ages.quantile(0.5)).toBe(490.1);
    expect(ages.quantile(0.99)).toBe(990);
  });
});
