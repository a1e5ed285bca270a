/**
 * The prices benchmark's arithmetic, pure (no table, no simulator): reaction times from the
 * simulator's logs, the prices sent against each repricer's bounds, how every decision ended,
 * and the share of time in the Best Price slot (docs/performance.md, `--prices`).
 */
import { toCents } from '../../lambdas/domain/money.js';
import { targetPrice } from '../../lambdas/domain/repricing.js';
import type { CompetitorOffer } from '../market/catalogue.js';
import { percentile } from './list-reads.js';

export interface Spread {
  readonly count: number;
  /** Seconds; NaN when there is nothing to measure. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** p50, p99 and max of durations in ms, in seconds. */
export const spread = (durationsMs: readonly number[]): Spread => {
  const sorted = [...durationsMs].sort((a, b) => a - b);
  if (sorted.length === 0) return { count: 0, p50: NaN, p99: NaN, max: NaN };
  return { count: sorted.length, p50: percentile(sorted, 0.5) / 1000, p99: percentile(sorted, 0.99) / 1000, max: sorted.at(-1)! / 1000 };
};

/** A repricer's bounds as the marketplace and the engine see them. */
export interface PriceBounds {
  readonly floor: number;
  readonly ceiling: number;
  readonly rrp: number;
  /** The connector type's price step (Takealot: 1 rand). */
  readonly step: number;
}

/** The lowest competitor price on a product's page from `at` on (undefined: no competitor listed); a read at a later ms sees it. */
export interface LowestPoint {
  readonly at: number;
  readonly price: number | undefined;
}

export interface ReactionInput {
  /** In time order; the first point holds from before the window. */
  readonly lowest: readonly LowestPoint[];
  /** Storefront reads of the page (answered 200), in time order. */
  readonly reads: readonly number[];
  /** Own prices the simulator accepted, in time order. */
  readonly applied: readonly { readonly at: number; readonly price: number }[];
  /** The own price before the first accepted one. */
  readonly startPrice: number;
  readonly bounds: PriceBounds;
}

export interface Reaction {
  /** The first competitor move the read revealed (the lowest price differed from the last read's from then). */
  readonly changedAt: number;
  /** The read that showed it. */
  readonly seenAt: number;
  /** The first own price accepted after that read. */
  readonly appliedAt: number;
}

export interface ReactionTally {
  readonly reactions: Reaction[];
  /** Reads showing a new lowest price whose target was the own price already. */
  readonly notNeeded: number;
  /** Reads that called for a new price, answered by none (the page was read again later). */
  readonly missed: number;
  /** Likewise, with no later read. */
  readonly unresolved: number;
  /** Reactions whose price came only after the page's next read. */
  readonly afterNextRead: number;
}

/** The engine's own target (lambdas/domain/repricing.ts) for a lowest competitor price. */
export const targetFor = (lowest: number | undefined, bounds: PriceBounds): number | undefined =>
  targetPrice(
    { enabled: true, min_price: bounds.floor, preferred_price: bounds.ceiling, connector: 'c' },
    lowest === undefined ? [] : [{ offer_id: 'x', offer_price: lowest, offer_status: 'buyable', connector: 'c', own: false }],
    bounds.step,
  )?.price;

const lastBefore = <T extends { at: number }>(points: readonly T[], time: number, strict: boolean): T | undefined => {
  let found: T | undefined;
  for (const point of points) {
    if (strict ? point.at < time : point.at <= time) found = point;
    else break;
  }
  return found;
};

/**
 * For each read within (from, to] that showed a lowest competitor price other than the read
 * before it: whether the own price had to move (the engine's target against the own price at
 * the read), and when it did: the first own price accepted after the read.
 */
export const reactionsOf = (input: ReactionInput, window: { readonly from: number; readonly to: number }): ReactionTally => {
  const lowestAt = (time: number) => lastBefore(input.lowest, time, true)?.price;
  const reactions: Reaction[] = [];
  let notNeeded = 0;
  let missed = 0;
  let unresolved = 0;
  let afterNextRead = 0;
  const before = input.reads.filter((read) => read <= window.from).at(-1);
  let previousRead = before ?? window.from;
  let seen = lowestAt(previousRead + (before === undefined ? 1 : 0));
  const reads = input.reads.filter((read) => read > window.from && read <= window.to);
  reads.forEach((read, i) => {
    const lowest = lowestAt(read);
    const since = previousRead;
    previousRead = read;
    if (lowest === seen) return;
    const changedAt = input.lowest.find((point) => point.at >= since && point.at < read && point.price !== seen)?.at ?? read;
    seen = lowest;
    const own = lastBefore(input.applied, read, false)?.price ?? input.startPrice;
    const target = targetFor(lowest, input.bounds);
    if (target === undefined || toCents(target) === toCents(own)) {
      notNeeded += 1;
      return;
    }
    const next = reads[i + 1] ?? input.reads.find((later) => later > read);
    // The own price's next move after the read answers it, however late: a slow answer is what the spans must show.
    const answer = input.applied.find((entry) => entry.at > read);
    if (answer) {
      reactions.push({ changedAt, seenAt: read, appliedAt: answer.at });
      if (next !== undefined && answer.at > next) afterNextRead += 1;
    } else if (next !== undefined) missed += 1;
    else unresolved += 1;
  });
  return { reactions, notNeeded, missed, unresolved, afterNextRead };
};

export interface PriceChecks {
  readonly checked: number;
  readonly belowFloor: number;
  readonly aboveCeiling: number;
  readonly aboveRrp: number;
  readonly offGrid: number;
  /** Prices for offers the benchmark set no repricer on. */
  readonly unknownOffer: number;
}

/** Every price the marketplace accepted against the bounds of its offer's repricer. */
export const checkPrices = (
  entries: readonly { readonly offerId: number; readonly price: number }[],
  boundsOf: ReadonlyMap<number, PriceBounds>,
): PriceChecks => {
  const checks = { checked: 0, belowFloor: 0, aboveCeiling: 0, aboveRrp: 0, offGrid: 0, unknownOffer: 0 };
  for (const { offerId, price } of entries) {
    checks.checked += 1;
    const bounds = boundsOf.get(offerId);
    if (!bounds) {
      checks.unknownOffer += 1;
      continue;
    }
    const cents = toCents(price);
    if (cents < toCents(bounds.floor)) checks.belowFloor += 1;
    if (cents > toCents(bounds.ceiling)) checks.aboveCeiling += 1;
    if (cents > toCents(bounds.rrp)) checks.aboveRrp += 1;
    if (cents % toCents(bounds.step) !== 0n) checks.offGrid += 1;
  }
  return checks;
};

export const TERMINAL_STATUSES = ['applied', 'failed', 'superseded', 'suggested'] as const;

/** A price change as the exactly-once check reads it. */
export interface DecisionOutcome {
  readonly offerId: string;
  readonly status: string;
  readonly sentPrice: number | null;
  readonly createdAt: number;
}

export interface ExactlyOnce {
  readonly decisions: number;
  readonly byStatus: Readonly<Record<string, number>>;
  /** Still pending or sent after the drain. */
  readonly notTerminal: number;
  /** Applied after a push, with no price the marketplace accepted for its offer at its sent price after it was made. */
  readonly appliedNotInLog: number;
  /** Prices the marketplace accepted for an offer with no decision made before them. */
  readonly unattributed: number;
  /** Per offer, prices accepted beyond one per decision that went out (steps of a large move, or repeats). */
  readonly extraPushes: number;
}

/** How the decisions ended, and the price log against them. */
export const exactlyOnce = (
  decisions: readonly DecisionOutcome[],
  log: ReadonlyMap<string, readonly { readonly at: number; readonly price: number }[]>,
): ExactlyOnce => {
  const byStatus: Record<string, number> = {};
  let notTerminal = 0;
  let appliedNotInLog = 0;
  for (const decision of decisions) {
    byStatus[decision.status] = (byStatus[decision.status] ?? 0) + 1;
    if (!(TERMINAL_STATUSES as readonly string[]).includes(decision.status)) notTerminal += 1;
    // Applied without a push (the offer already had the price) has nothing to find in the log.
    const sentPrice = decision.sentPrice;
    if (decision.status === 'applied' && sentPrice !== null) {
      const entries = log.get(decision.offerId) ?? [];
      if (!entries.some((entry) => entry.at >= decision.createdAt && toCents(entry.price) === toCents(sentPrice))) appliedNotInLog += 1;
    }
  }
  let unattributed = 0;
  let extraPushes = 0;
  for (const [offerId, entries] of log) {
    const mine = decisions.filter((decision) => decision.offerId === offerId);
    const first = Math.min(...mine.map((decision) => decision.createdAt));
    unattributed += entries.filter((entry) => !(entry.at >= first)).length;
    extraPushes += Math.max(0, entries.length - mine.filter((decision) => decision.sentPrice !== null).length);
  }
  return { decisions: decisions.length, byStatus, notTerminal, appliedNotInLog, unattributed, extraPushes };
};

/** The lowest price a bot can go to: its floor or minimum when it moves, its price when it does not. */
export const botFloor = (offer: Pick<CompetitorOffer, 'price' | 'bot'>): number =>
  offer.bot.kind === 'undercutter' ? offer.bot.floor : offer.bot.kind === 'random_walk' ? offer.bot.min : offer.price;

export type FloorGroup = 'below' | 'between' | 'above';

/**
 * Where the demo seller's floor lies: under every bot's floor (it can always undercut them),
 * between the cheapest bot's floor and the cheapest bot's start price (it wins until a bot
 * goes under its floor), or at or above that start price (it wins only when the bots rise).
 */
export const floorGroup = (demoFloor: number, bots: readonly Pick<CompetitorOffer, 'price' | 'bot'>[]): FloorGroup => {
  if (bots.length === 0) return 'below';
  const lowestFloor = Math.min(...bots.map(botFloor));
  const lowestStart = Math.min(...bots.map((bot) => bot.price));
  return demoFloor < lowestFloor ? 'below' : demoFloor < lowestStart ? 'between' : 'above';
};

export interface SlotTally {
  samples: number;
  demo: number;
  static: number;
}

export interface GroupShare {
  readonly group: FloorGroup;
  readonly products: number;
  readonly samples: number;
  /** Share of the samples in which the demo seller held Best Price. */
  readonly demoShare: number;
  readonly staticShare: number;
}

/** Per group, the share of sampled moments in which each seller held Best Price. */
export const groupShares = (tallies: readonly { readonly group: FloorGroup; readonly tally: SlotTally }[]): GroupShare[] =>
  (['below', 'between', 'above'] as const).map((group) => {
    const members = tallies.filter((entry) => entry.group === group);
    const sum = (field: keyof SlotTally) => members.reduce((total, entry) => total + entry.tally[field], 0);
    const samples = sum('samples');
    return {
      group,
      products: members.length,
      samples,
      demoShare: samples === 0 ? NaN : sum('demo') / samples,
      staticShare: samples === 0 ? NaN : sum('static') / samples,
    };
  });

/** One approach's sampled moments: who held each slot, and the own price over its floor. */
export interface ApproachTally {
  samples: number;
  bestPrice: number;
  fastestDelivery: number;
  /** Sums over the samples of the own price minus the floor (rands) and of that in percent of the floor. */
  marginSum: number;
  marginPercentSum: number;
  /** The same percent, summed over the samples where the own offer held Best Price only. */
  bestPriceMarginPercentSum: number;
}

export const emptyApproachTally = (): ApproachTally => ({
  samples: 0,
  bestPrice: 0,
  fastestDelivery: 0,
  marginSum: 0,
  marginPercentSum: 0,
  bestPriceMarginPercentSum: 0,
});

/** One sampled moment of a product priced by the approach. */
export const sampleApproach = (tally: ApproachTally, moment: { bestPrice: boolean; fastestDelivery: boolean; price: number; floor: number }): void => {
  tally.samples += 1;
  if (moment.bestPrice) tally.bestPrice += 1;
  if (moment.fastestDelivery) tally.fastestDelivery += 1;
  const percent = moment.floor > 0 ? ((moment.price - moment.floor) / moment.floor) * 100 : 0;
  tally.marginSum += moment.price - moment.floor;
  tally.marginPercentSum += percent;
  if (moment.bestPrice) tally.bestPriceMarginPercentSum += percent;
};

export interface ApproachShare {
  readonly approach: string;
  readonly products: number;
  readonly samples: number;
  /** Shares of the sampled moments the own offer held each slot. */
  readonly bestPriceShare: number;
  readonly fastestDeliveryShare: number;
  /** Average own price over the floor, in rands and in percent of the floor. */
  readonly averageMargin: number;
  readonly averageMarginPercent: number;
  /** Average own price over the floor, in percent of the floor, at the moments it held Best Price. */
  readonly bestPriceMarginPercent: number;
}

export const approachShare = (approach: string, products: number, tally: ApproachTally): ApproachShare => {
  const per = (value: number) => (tally.samples === 0 ? NaN : value / tally.samples);
  return {
    approach,
    products,
    samples: tally.samples,
    bestPriceShare: per(tally.bestPrice),
    fastestDeliveryShare: per(tally.fastestDelivery),
    averageMargin: per(tally.marginSum),
    averageMarginPercent: per(tally.marginPercentSum),
    bestPriceMarginPercent: tally.bestPrice === 0 ? NaN : tally.bestPriceMarginPercentSum / tally.bestPrice,
  };
};
