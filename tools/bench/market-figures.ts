/**
 * The market-sync benchmark's arithmetic, pure (no table, no simulator): the age of each
 * product's market view from the simulator's read log, the comparison of what the service
 * serves with what the market holds, and the verdict of a figure against its target.
 */
import { percentile } from './list-reads.js';

export interface Target {
  readonly label: string;
  readonly value: number;
  /** `max`: the value must be at most `limit`; `below`: strictly under it. */
  readonly kind: 'max' | 'below';
  readonly limit: number;
  readonly unit?: string;
}

export const met = (target: Target): boolean => (target.kind === 'max' ? target.value <= target.limit : target.value < target.limit);

export const verdictLine = (target: Target): string => {
  const unit = target.unit ? ` ${target.unit}` : '';
  const sign = target.kind === 'max' ? '<=' : '<';
  const value = Number.isInteger(target.value) ? String(target.value) : target.value.toFixed(1);
  return `${target.label}: ${value}${unit} (target ${sign} ${target.limit}${unit}) ${met(target) ? 'MET' : 'MISSED'}`;
};

export interface AgeFigures {
  /** Products whose reads were measured. */
  readonly products: number;
  /** Sampled moments, all products together. */
  readonly samples: number;
  readonly p50Seconds: number;
  readonly p99Seconds: number;
  readonly maxSeconds: number;
  /** The longest time any product went without a read within the window (the end counts as a read). */
  readonly longestGapSeconds: number;
  /** Products never read within the window (their age is counted from the window's start). */
  readonly neverRead: number;
}

/**
 * The age of each product's view at moments `everyMs` apart within [from, to]: the time since
 * its latest read at or before the moment (reads before `from` count; a product with none yet
 * is as old as the time since `readsFrom`, the moment it could first have been read).
 */
export const viewAges = (
  reads: ReadonlyMap<string, readonly number[]>,
  window: { readsFrom: number; from: number; to: number; everyMs: number },
): AgeFigures => {
  const { readsFrom, from, to, everyMs } = window;
  if (!(everyMs > 0) || to < from) throw new RangeError('an age window needs from <= to and a positive step');
  const ages: number[] = [];
  let longestGap = 0;
  let neverRead = 0;
  for (const times of reads.values()) {
    const sorted = times.filter((t) => t >= readsFrom && t <= to).sort((a, b) => a - b);
    if (sorted.length === 0) neverRead += 1;
    let index = -1;
    for (let moment = from; moment <= to; moment += everyMs) {
      while (index + 1 < sorted.length && sorted[index + 1]! <= moment) index += 1;
      ages.push(moment - (index >= 0 ? sorted[index]! : readsFrom));
    }
    // Gaps inside the window, the stretch before the first read and the one after the last.
    const inWindow = [readsFrom, ...sorted, to];
    for (let i = 1; i < inWindow.length; i++) {
      const gapEnd = inWindow[i]!;
      const gapStart = inWindow[i - 1]!;
      if (gapEnd >= from) longestGap = Math.max(longestGap, gapEnd - Math.max(gapStart, readsFrom));
    }
  }
  ages.sort((a, b) => a - b);
  return {
    products: reads.size,
    samples: ages.length,
    p50Seconds: ages.length === 0 ? NaN : percentile(ages, 0.5) / 1000,
    p99Seconds: ages.length === 0 ? NaN : percentile(ages, 0.99) / 1000,
    maxSeconds: ages.length === 0 ? NaN : ages.at(-1)! / 1000,
    longestGapSeconds: longestGap / 1000,
    neverRead,
  };
};

/** One offer as the comparison sees it: the fields the service serves that the market decides. */
export type ComparedFields = Readonly<Record<string, string | number | boolean>>;

export interface FieldDifference {
  /** Which offer: `own <offer id>` or `<product code> / <seller id>`. */
  readonly offer: string;
  readonly field: string;
  readonly expected: string | number | boolean | undefined;
  readonly served: string | number | boolean | undefined;
}

/**
 * Every field of every expected offer against the served one with the same key; an expected
 * offer the service does not serve is one difference per field, and a served offer nothing
 * expects is one difference (`field: "(offer)"`).
 */
export const compareOffers = (expected: ReadonlyMap<string, ComparedFields>, served: ReadonlyMap<string, ComparedFields>): FieldDifference[] => {
  const differences: FieldDifference[] = [];
  for (const [offer, fields] of expected) {
    const got = served.get(offer);
    for (const [field, value] of Object.entries(fields)) {
      const servedValue = got?.[field];
      if (servedValue !== value) differences.push({ offer, field, expected: value, served: servedValue });
    }
  }
  for (const offer of served.keys()) if (!expected.has(offer)) differences.push({ offer, field: '(offer)', expected: undefined, served: 'served' });
  return differences;
};
