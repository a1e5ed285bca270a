import * as z from 'zod';
import { centsToNumber, toCents } from './money.js';
import { money, PRICE_CHANGE_REASON_VALUES, PRICE_CHANGE_STATUSES, productCode, timestamp, type PriceChange } from './records.js';

/**
 * The outcomes of a repricer over a time range (`GET /v1/repricers/{id}/stats`, docs/repricing.md,
 * "Outcomes"): how long its own offers held each buy-box slot, sat at the floor, and how far above
 * it they were priced, from the recorded states of its own offers (one recorded each time the
 * service saw an own offer's slots or price change: not sampled), and what it decided, by status
 * and reason. Pure: the data layer reads the states and price changes of the range.
 *
 * A state holds from its time until the offer's next state. Time before an offer's first known
 * state, or while it is off the product (removed or moved), is not observed, and every share is
 * a share of the observed time.
 */
export const MAX_STATS_RANGE_DAYS = 31;
export const DEFAULT_STATS_RANGE_HOURS = 24;

/** What the service saw of one own offer from `at` on (epoch milliseconds). */
export interface OfferState {
  readonly at: number;
  /** False: the offer left the product (removed or moved); nothing is known of it from then on. */
  readonly present: boolean;
  /** The Best Price slot (the offer's `winning`). */
  readonly winning: boolean;
  /** The Fastest Delivery slot (the offer's `winning_delivery`). */
  readonly winningDelivery: boolean;
  readonly price: number;
}

/**
 * A state of an own offer as the change stream shows it, on its way to be recorded (what
 * `OfferState` is read back as).
 */
export const offerStateChange = z.object({
  productCode,
  offerId: z.string().min(1),
  connector: z.string().min(1),
  /** When the service saw it: the offer's `updated_at`, or the stream's time for a removal. */
  at: timestamp,
  present: z.boolean(),
  winning: z.boolean(),
  winningDelivery: z.boolean(),
  price: money,
});
export type OfferStateChange = z.infer<typeof offerStateChange>;

export interface OfferTimeline {
  readonly offerId: string;
  /** The last state at or before the range's start, if any. */
  readonly before: OfferState | undefined;
  /** The states inside the range, in time order. */
  readonly within: readonly OfferState[];
}

export interface StatsWindow {
  readonly from: number;
  readonly to: number;
}

const share = z.number().min(0).max(1).nullable();
const slotTime = z.strictObject({ seconds: z.number().min(0), share });

const offerStats = z.strictObject({
  offer_id: z.string(),
  /** Seconds of the range in which the offer's state was known. */
  observed_seconds: z.number().min(0),
  best_price: slotTime,
  fastest_delivery: slotTime,
  /** Time priced at or below the repricer's `min_price` (as it is now). */
  at_floor: slotTime,
  /** The time-weighted average of the price minus `min_price`, to the cent; null when nothing was observed. */
  average_over_floor: z.number().nullable(),
  /** States recorded inside the range. */
  changes: z.int().min(0),
});
export type OfferStats = z.infer<typeof offerStats>;

const countsOf = <const V extends readonly string[]>(values: V) =>
  z.strictObject(Object.fromEntries(values.map((value) => [value, z.int().min(0)])) as { [K in V[number]]: z.ZodInt });

export const repricerStats = z.strictObject({
  repricer_id: z.int().positive(),
  from: z.string(),
  to: z.string(),
  min_price: z.number(),
  /** Any own offer of the repricer on its connector: the union of their observed and held time. */
  observed_seconds: z.number().min(0),
  best_price: slotTime,
  fastest_delivery: slotTime,
  at_floor: slotTime,
  average_over_floor: z.number().nullable(),
  offers: z.array(offerStats),
  price_changes: z.strictObject({
    /** Price changes created in the range. */
    total: z.int().min(0),
    by_status: countsOf(PRICE_CHANGE_STATUSES),
    by_reason: countsOf(PRICE_CHANGE_REASON_VALUES),
  }),
});
export type RepricerStats = z.infer<typeof repricerStats>;

/** One stretch of time in which an offer's state did not change. */
interface Stretch {
  readonly start: number;
  readonly end: number;
  readonly state: OfferState;
}

/** The offer's known stretches inside the window, each clipped to it. */
export const stretchesOf = (timeline: OfferTimeline, window: StatsWindow): Stretch[] => {
  const states = [...(timeline.before ? [timeline.before] : []), ...timeline.within].filter((state) => state.at < window.to).sort((a, b) => a.at - b.at);
  const stretches: Stretch[] = [];
  states.forEach((state, i) => {
    const start = Math.max(state.at, window.from);
    const end = Math.min(states[i + 1]?.at ?? window.to, window.to);
    if (state.present && end > start) stretches.push({ start, end, state });
  });
  return stretches;
};

const seconds = (ms: number) => ms / 1000;
const slot = (held: number, observed: number) => ({ seconds: seconds(held), share: observed > 0 ? held / observed : null });

/** Whole cents of a time-weighted sum (cents times milliseconds) over the time, as money. */
const averageOf = (centMilliseconds: bigint, observed: number): number | null =>
  observed > 0 ? centsToNumber(roundedDiv(centMilliseconds, BigInt(observed))) : null;

const roundedDiv = (numerator: bigint, denominator: bigint): bigint => {
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const quotient = (2n * magnitude + denominator) / (2n * denominator);
  return negative ? -quotient : quotient;
};

interface Sums {
  observed: number;
  bestPrice: number;
  fastestDelivery: number;
  atFloor: number;
  overFloor: bigint;
}

const sumsOf = (stretches: readonly Stretch[], floorCents: bigint): Sums => {
  const sums: Sums = { observed: 0, bestPrice: 0, fastestDelivery: 0, atFloor: 0, overFloor: 0n };
  for (const { start, end, state } of stretches) {
    const length = end - start;
    const price = toCents(state.price);
    sums.observed += length;
    if (state.winning) sums.bestPrice += length;
    if (state.winningDelivery) sums.fastestDelivery += length;
    if (price <= floorCents) sums.atFloor += length;
    sums.overFloor += (price - floorCents) * BigInt(length);
  }
  return sums;
};

/**
 * The union over offers: a moment counts as observed when any offer's state is known then, and
 * as held (at the floor) when any known offer holds the slot (is at the floor) then. The
 * average over the floor weighs each offer's known time alike.
 */
const unionOf = (all: readonly (readonly Stretch[])[], floorCents: bigint): Omit<Sums, 'overFloor'> => {
  const bounds = [...new Set(all.flatMap((stretches) => stretches.flatMap(({ start, end }) => [start, end])))].sort((a, b) => a - b);
  const sums = { observed: 0, bestPrice: 0, fastestDelivery: 0, atFloor: 0 };
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [start, end] = [bounds[i]!, bounds[i + 1]!];
    const known = all.flatMap((stretches) => stretches.filter((stretch) => stretch.start <= start && stretch.end >= end).map((stretch) => stretch.state));
    if (known.length === 0) continue;
    const length = end - start;
    sums.observed += length;
    if (known.some((state) => state.winning)) sums.bestPrice += length;
    if (known.some((state) => state.winningDelivery)) sums.fastestDelivery += length;
    if (known.some((state) => toCents(state.price) <= floorCents)) sums.atFloor += length;
  }
  return sums;
};

export interface StatsInput {
  readonly repricerId: number;
  readonly minPrice: number;
  readonly window: StatsWindow;
  readonly timelines: readonly OfferTimeline[];
  /** The repricer's price changes; those created outside the window are not counted. */
  readonly priceChanges: readonly Pick<PriceChange, 'status' | 'reason' | 'created_at'>[];
}

const zeroCounts = <V extends string>(values: readonly V[]) => Object.fromEntries(values.map((value) => [value, 0])) as Record<V, number>;

export const repricerStatsOf = ({ repricerId, minPrice, window, timelines, priceChanges }: StatsInput): RepricerStats => {
  const floor = toCents(minPrice);
  const perOffer = [...timelines]
    .sort((a, b) => (a.offerId < b.offerId ? -1 : a.offerId > b.offerId ? 1 : 0))
    .map((timeline) => ({ timeline, stretches: stretchesOf(timeline, window) }));
  const offers = perOffer.map(({ timeline, stretches }): OfferStats => {
    const sums = sumsOf(stretches, floor);
    return {
      offer_id: timeline.offerId,
      observed_seconds: seconds(sums.observed),
      best_price: slot(sums.bestPrice, sums.observed),
      fastest_delivery: slot(sums.fastestDelivery, sums.observed),
      at_floor: slot(sums.atFloor, sums.observed),
      average_over_floor: averageOf(sums.overFloor, sums.observed),
      changes: timeline.within.filter((state) => state.at >= window.from && state.at < window.to).length,
    };
  });
  const union = unionOf(
    perOffer.map(({ stretches }) => stretches),
    floor,
  );
  const weighted = perOffer.reduce(
    (total, { stretches }) => {
      const sums = sumsOf(stretches, floor);
      return { observed: total.observed + sums.observed, overFloor: total.overFloor + sums.overFloor };
    },
    { observed: 0, overFloor: 0n },
  );
  const byStatus = zeroCounts(PRICE_CHANGE_STATUSES);
  const byReason = zeroCounts(PRICE_CHANGE_REASON_VALUES);
  let total = 0;
  for (const change of priceChanges) {
    const at = Date.parse(change.created_at);
    if (at < window.from || at >= window.to) continue;
    total++;
    byStatus[change.status]++;
    byReason[change.reason]++;
  }
  return {
    repricer_id: repricerId,
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    min_price: minPrice,
    observed_seconds: seconds(union.observed),
    best_price: slot(union.bestPrice, union.observed),
    fastest_delivery: slot(union.fastestDelivery, union.observed),
    at_floor: slot(union.atFloor, union.observed),
    average_over_floor: averageOf(weighted.overFloor, weighted.observed),
    offers,
    price_changes: { total, by_status: byStatus, by_reason: byReason },
  };
};

/** `GET /v1/repricers/{id}/stats` query: ISO 8601 times; `to` defaults to now, `from` to a day before `to`. */
export const statsQueryParameters = z.strictObject({
  from: z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 date and time, e.g. 2026-01-15T08:00:00Z.' }).optional(),
  to: z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 date and time, e.g. 2026-01-15T08:00:00Z.' }).optional(),
});

export type StatsWindowOutcome =
  { readonly ok: true; readonly window: StatsWindow } | { readonly ok: false; readonly field: 'from' | 'to'; readonly message: string };

/**
 * The window a query asks for, bounded: `to` after `from`, at most MAX_STATS_RANGE_DAYS long,
 * and cut at `now` (what has not happened yet is not observed).
 */
export const statsWindowOf = (query: z.output<typeof statsQueryParameters>, now: number): StatsWindowOutcome => {
  const to = query.to === undefined ? now : Date.parse(query.to);
  const from = query.from === undefined ? to - DEFAULT_STATS_RANGE_HOURS * 3_600_000 : Date.parse(query.from);
  if (to <= from) return { ok: false, field: 'to', message: 'Must be later than from.' };
  if (to - from > MAX_STATS_RANGE_DAYS * 86_400_000)
    return { ok: false, field: 'from', message: `The range may be at most ${MAX_STATS_RANGE_DAYS} days long.` };
  if (from >= now) return { ok: false, field: 'from', message: 'Must be in the past.' };
  return { ok: true, window: { from, to: Math.min(to, now) } };
};
