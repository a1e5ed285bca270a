import fc from 'fast-check';
import { initialFairShare, selectFairly, type FairShareState, type Lane, type LaneItem } from '../../../../lambdas/domain/read-planner/fair-share.js';
import { jainIndex } from '../../../../tools/bench/planner-sim-figures.js';
import { fcParameters, fcRuns } from '../../../support/seed.js';

interface Item extends LaneItem {
  readonly id: string;
}

/** Lanes over arrays; an item taken from one lane is gone from every lane (as the planner's lanes see it). */
const lanesOf = (items: Readonly<Record<string, readonly Item[]>>) => {
  const taken = new Set<string>();
  const at = new Map(Object.keys(items).map((t) => [t, 0]));
  const lane = (tenant: string): Lane<Item> | undefined => {
    const list = items[tenant];
    if (list === undefined) return undefined;
    const skip = () => {
      while (at.get(tenant)! < list.length && taken.has(list[at.get(tenant)!]!.id)) at.set(tenant, at.get(tenant)! + 1);
    };
    return {
      peek: () => {
        skip();
        return list[at.get(tenant)!];
      },
      pop: () => {
        skip();
        const item = list[at.get(tenant)!];
        at.set(tenant, at.get(tenant)! + 1);
        return item;
      },
    };
  };
  return { lane, taken: (item: Item) => taken.add(item.id) };
};

const exclusive = (tenant: string, count: number): Item[] => Array.from({ length: count }, (_, i) => ({ id: `${tenant}-${i}`, requesters: [tenant] }));

/** Runs `calls` selections of `room` each; returns the picks and what each tenant was charged. */
const run = (items: Record<string, Item[]>, weights: Record<string, number>, room: number, calls: number) => {
  const tenants = Object.keys(items);
  const { lane, taken } = lanesOf(items);
  let state: FairShareState = initialFairShare;
  const picked: Item[] = [];
  for (let i = 0; i < calls; i++) {
    const result = selectFairly(state, { tenants, lane, weight: (t) => weights[t]!, room, taken });
    expect(result.picked.length).toBeLessThanOrEqual(room);
    state = result.state;
    picked.push(...result.picked);
  }
  const charged = Object.fromEntries(tenants.map((t) => [t, 0]));
  for (const item of picked) for (const t of item.requesters) charged[t]! += 1 / item.requesters.length;
  return { picked, charged };
};

describe('fair shares across tenants (deficit round robin)', () => {
  it("gives backlogged tenants equal reads whatever their catalogue's size (Jain's index 1)", () => {
    const { charged } = run(
      { small: exclusive('small', 400), mid: exclusive('mid', 4_000), large: exclusive('large', 40_000) },
      { small: 1, mid: 1, large: 1 },
      30,
      10,
    );
    expect(charged).toEqual({ small: 100, mid: 100, large: 100 });
    expect(jainIndex(Object.values(charged))).toBeCloseTo(1, 6);
  });

  it('respects the weights of the plans', () => {
    const { charged } = run({ a: exclusive('a', 1_000), b: exclusive('b', 1_000), c: exclusive('c', 1_000) }, { a: 2, b: 1, c: 1 }, 40, 10);
    expect(charged).toEqual({ a: 200, b: 100, c: 100 });
  });

  it('charges a page several tenants asked for to each of them in equal parts, and reads it once', () => {
    const shared: Item[] = Array.from({ length: 100 }, (_, i) => ({ id: `s-${i}`, requesters: ['a', 'b'] }));
    const { picked, charged } = run({ a: shared, b: shared, c: exclusive('c', 100) }, { a: 1, b: 1, c: 1 }, 30, 3);
    expect(new Set(picked.map((item) => item.id)).size).toBe(picked.length);
    expect(picked.filter((item) => item.id.startsWith('s-'))).toHaveLength(60);
    expect(charged).toEqual({ a: 30, b: 30, c: 30 });
  });

  it("keeps a tenant's exclusive pages to its own share, however many it has", () => {
    const others = { b: exclusive('b', 500), c: exclusive('c', 500) };
    const small = run({ a: exclusive('a', 50), ...others }, { a: 1, b: 1, c: 1 }, 30, 5).charged;
    const huge = run({ a: exclusive('a', 100_000), ...others }, { a: 1, b: 1, c: 1 }, 30, 5).charged;
    expect(small).toEqual(huge);
  });

  it('gives what an idle tenant leaves to the others', () => {
    const { charged } = run({ a: exclusive('a', 5), b: exclusive('b', 1_000) }, { a: 1, b: 1 }, 50, 2);
    expect(charged).toEqual({ a: 5, b: 95 });
  });

  it('stays within two reads per weight of the weighted share, however long it runs and however small each selection, for any backlogged lanes and weights', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ weight: fc.integer({ min: 1, max: 4 }), size: fc.integer({ min: 600, max: 2_000 }) }), { minLength: 2, maxLength: 8 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 8 }),
        (specs, room, calls) => {
          const tenants = specs.map((_, i) => `t${i}`);
          const items = Object.fromEntries(specs.map((spec, i) => [tenants[i]!, exclusive(tenants[i]!, spec.size)]));
          const weights = Object.fromEntries(specs.map((spec, i) => [tenants[i]!, spec.weight]));
          const { picked, charged } = run(items, weights, room, calls);
          expect(picked).toHaveLength(room * calls);
          const perWeight = tenants.map((t) => charged[t]! / weights[t]!);
          expect(Math.max(...perWeight) - Math.min(...perWeight)).toBeLessThanOrEqual(2 + 1e-9);
        },
      ),
      fcParameters({ numRuns: fcRuns(100, 500) }),
    );
  });
});
