import { pricesLines } from '../../../tools/bench/prices.js';
import type { RunFigures } from '../../../tools/bench/prices-run.js';
import { spread } from '../../../tools/bench/prices-figures.js';
import { emptyTally, type WriteTally } from '../../../tools/bench/write-meter.js';

const units = (kind: 'priceChange' | 'offer', total: number): WriteTally => ({
  byKind: { [kind]: { writes: total, transactional: 0, table: total, indexes: 0 } },
  writes: total,
  table: total,
  indexes: 0,
  total,
});

const run = (overrides: Partial<RunFigures>): RunFigures => ({
  run: 'polling',
  webhooks: false,
  products: 10,
  windowSeconds: 60,
  setupSeconds: 30,
  startupDecisions: 10,
  drainSeconds: 5,
  botTicks: 12,
  scheduleTicks: 4,
  reaction: {
    tierSeconds: 30,
    changeToSeen: spread([5_000]),
    seenToDecided: spread([100]),
    seenToApplied: spread([2_000, 2_500, 12_000]),
    changeToApplied: spread([7_000, 8_000, 30_000]),
    notNeeded: 0,
    missed: 0,
    unresolved: 0,
    afterNextRead: 0,
  },
  prices: { checked: 3, belowFloor: 0, aboveCeiling: 0, aboveRrp: 0, offGrid: 0, unknownOffer: 0 },
  exactlyOnce: {
    decisions: 3,
    byStatus: { applied: 3 },
    notTerminal: 0,
    appliedNotInLog: 0,
    unattributed: 0,
    extraPushes: 0,
    logDuplicates: { request_id: 0, within_batch: 0, unchanged_price: 0 },
    accepted: 3,
  },
  connection: { status: 'connected', prices_sent: 3 },
  traffic: {
    politeness: {
      seller: { requests: 5, refused: 0, blocked: 0, inside_retry_after: 0 },
      storefront: { requests: 5, refused: 0, blocked: 0, inside_retry_after: 0 },
    },
    requests: {},
    storefront_reads: 5,
  },
  webhookDeliveries: { delivered: 0, dropped: 0, duplicated: 0, failed: 0 },
  serviceTimes: { createdToSent: spread([]), sentToApplied: spread([]), startupCreatedToApplied: spread([]) },
  unfinished: [],
  sample: [],
  ...overrides,
});

const verdict = (lines: readonly string[], start: string) => lines.find((line) => line.trim().startsWith(start));

describe('prices benchmark lines', () => {
  it('judges the service’s part of the reaction against 3 s and 10 s, and the whole against the tier + 10 s', () => {
    const { lines, targets } = pricesLines([run({})]);
    expect(verdict(lines, 'polling: seen -> applied p50')).toMatch(/2\.5 s \(target <= 3 s\) MET$/);
    expect(verdict(lines, 'polling: seen -> applied p99')).toMatch(/12 s \(target <= 10 s\) MISSED$/);
    expect(verdict(lines, 'polling: change -> applied p99')).toMatch(/30 s \(target <= 40 s\) MET$/);
    expect(targets.every((target) => Number.isFinite(target.value))).toBe(true);
  });

  it('counts a price that reached the simulator after the kill switch, and a decision left pending', () => {
    const { lines } = pricesLines([
      run({
        run: 'webhooks',
        killSwitch: { atSeconds: 40, lateUpdates: 1, appliedLate: 2, updatesAfter: 2, lastUpdateAfterSeconds: 2.1 },
        exactlyOnce: { ...run({}).exactlyOnce, notTerminal: 1 },
        unfinished: [{ status: 'pending', attempts: 2, retryInSeconds: 40 }],
      }),
    ]);
    expect(verdict(lines, 'webhooks: prices reaching the simulator')).toMatch(/: 1 \(target <= 0\) MISSED$/);
    expect(verdict(lines, 'webhooks: decisions not ended')).toMatch(/MISSED$/);
    expect(verdict(lines, 'not ended:')).toContain("1 pending after 2 faults; the sender's next tries due within 40 s");
  });

  it('sets the writes per applied change of a live run against the writes per decision recorded after the kill switch', () => {
    const { lines } = pricesLines([
      run({ run: 'webhooks', suggestCost: { tally: units('priceChange', 90), suggested: 10 } }),
      run({
        liveCost: { tally: { ...units('priceChange', 300), byKind: { ...units('priceChange', 300).byKind, ...units('offer', 50).byKind } }, applied: 10 },
      }),
    ]);
    // 300 / 10 = 30 per applied change against 9 per decision: 3.3x.
    expect(verdict(lines, 'write units per applied change')).toMatch(/3\.3 x \(target <= 3 x\) MISSED$/);
    expect(pricesLines([run({ liveCost: { tally: emptyTally(), applied: 0 } })]).lines.some((line) => line.includes('NaN x'))).toBe(true);
  });
});
