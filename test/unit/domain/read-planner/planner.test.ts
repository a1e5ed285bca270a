import { READ_PLANNER, type ReadPlannerSettings } from '../../../../lambdas/config/read-planner.js';
import { createReadPlanner } from '../../../../lambdas/domain/read-planner/planner.js';
import { reasonNames } from '../../../../lambdas/domain/read-planner/reasons.js';

const S: ReadPlannerSettings = READ_PLANNER;
const MINUTE = 60_000;
const quiet = { moved: false, contested: false };

/** A planner whose pages were all looked at once at `at`, so that nothing is due before their next look. */
const plannerWith = (pages: Readonly<Record<string, readonly string[]>>, at = 0, repriced = true) => {
  const planner = createReadPlanner(S, () => 1);
  for (const [variant, tenants] of Object.entries(pages)) {
    for (const tenant of tenants) planner.watch(variant, { tenant, repriced }, at);
    planner.looked(variant, { at, ...quiet });
  }
  return planner;
};

describe('the read planner', () => {
  it('reads a page once per look however many tenants sell it, for all of them', () => {
    const tenants = Array.from({ length: 30 }, (_, i) => `t${i}`);
    const planner = createReadPlanner(S, () => 1);
    for (const tenant of tenants) planner.watch('PLID1', { tenant, repriced: tenant === 't3' }, 0);
    const { reads } = planner.plan(0, 100);
    expect(reads).toHaveLength(1);
    expect(reads[0]!.requesters).toEqual(tenants);
    expect(planner.plan(1_000, 100).reads).toEqual([]);
  });

  it('merges an event for a page already queued into its read, and plans no second read', () => {
    const planner = createReadPlanner(S, () => 1);
    planner.watch('PLID1', { tenant: 'a', repriced: true }, 0);
    planner.watch('PLID1', { tenant: 'b', repriced: false }, 0);
    const [read] = planner.plan(0, 10).reads;
    planner.bringForward('PLID1', 'event', 'b', 500);
    expect(planner.plan(1_000, 10).reads).toEqual([]);
    expect(planner.queued('PLID1')!.requesters).toEqual(['a', 'b']);
    expect(planner.use(read!)).toBe('read');
  });

  it('drops a queued read whose page nobody watches any more, and plans it no more', () => {
    const planner = createReadPlanner(S, () => 1);
    planner.watch('PLID1', { tenant: 'a', repriced: true }, 0);
    const [read] = planner.plan(0, 10).reads;
    planner.unwatch('PLID1', 'a');
    expect(planner.use(read!)).toBe('unwatched');
    planner.dropped(read!, 1_000);
    expect(planner.get('PLID1')).toBeUndefined();
    expect(planner.plan(10 * 3_600_000, 10).reads).toEqual([]);
  });

  it('brings a look forward for an event, never within the floor of the last look, and reads it for the tenant that asked', () => {
    const planner = plannerWith({ PLID1: ['a', 'b'] });
    planner.bringForward('PLID1', 'event', 'b', 1_000);
    expect(planner.plan(S.floorSeconds * 1000 - 1, 10).reads).toEqual([]);
    const [read] = planner.plan(S.floorSeconds * 1000, 10).reads;
    expect(read!.requesters).toEqual(['b']);
    expect(reasonNames(read!.reasons)).toContain('event');
  });

  it("keeps a tenant's sync of a large catalogue to its own share: another tenant's due pages still go first in turn", () => {
    const big = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`B${i}`, ['big']]));
    const small = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`S${i}`, ['small']]));
    const planner = plannerWith({ ...big, ...small });
    const later = 4 * 3_600_000;
    // Both catalogues are due by then; the big tenant also asked for a sync of all of it.
    for (const variant of Object.keys(big)) planner.bringForward(variant, 'sync', 'big', later);
    const { reads } = planner.plan(later, 10);
    expect(reads).toHaveLength(10);
    expect(reads.filter((read) => read.requesters.includes('small'))).toHaveLength(5);
  });

  it("never admits more than the room, and shares spare budget fairly, each tenant's pages looked at longest ago first, never within the floor", () => {
    const pages = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`P${i}`, [`t${i % 5}`]]));
    const planner = createReadPlanner(S, () => 1);
    for (const [variant, tenants] of Object.entries(pages)) {
      planner.watch(variant, { tenant: tenants[0]!, repriced: true }, 0);
      planner.looked(variant, { at: -Number(variant.slice(1)) * 1_000, ...quiet });
    }
    // Nothing is due at 1 minute (repriced pages wait at least a quarter of the prior's hour): the room goes to the stalest.
    const { reads, early } = planner.plan(MINUTE, 7);
    expect(reads).toHaveLength(7);
    expect(early).toBe(7);
    // Shared fairly: each of the five tenants' stalest page, then two tenants' next stalest.
    const variants = reads.map((read) => read.variant);
    expect(variants).toEqual(expect.arrayContaining(['P45', 'P46', 'P47', 'P48', 'P49']));
    expect(variants.every((variant) => Number(variant.slice(1)) >= 40)).toBe(true);
    for (const read of reads) planner.looked(read.variant, { at: MINUTE, ...quiet });
    const next = planner.plan(MINUTE + 1_000, 100).reads.map((read) => read.variant);
    expect(next).toHaveLength(43);
    for (const variant of variants) expect(next).not.toContain(variant);
  });
});
