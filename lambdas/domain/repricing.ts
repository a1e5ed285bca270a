import type { BuyboxApproach, RepricerApproach } from './approaches.js';
import type { CompetitorFilterName } from './competitor-filter-names.js';
import { excludingFilter, type EngineFilters, type FilteredOffer } from './competitor-filters.js';
import { MAX_LISTED_COMPETITORS, type ExcludedCompetitor, type ExplainedCompetitor, type TargetExplanation } from './explanation.js';
import { DEFAULT_IN_STOCK_PREMIUM, type InStockPremium } from './in-stock-premium.js';
import { ceilToStep as ceilTo, centsToNumber, floorToStep as floorTo, toCents } from './money.js';
import type { PriceChange } from './records.js';
import type { Rival, StepRule, StockStatus, StrategyStep } from './strategies/strategy.js';
import { strategyOf } from './strategies/table.js';

/**
 * The repricing engine (docs/repricing.md): what price a repricer wants for the client's own
 * offer of its product on its connector, given the competitors' offers. Pure and exact: every
 * amount is integer cents. One pipeline for every approach (`planTarget`):
 *  1. competitors: the other sellers' buyable offers of the same product and connector that pass
 *     the repricer's competitor filters (competitor-filters.ts);
 *  2. the strategy of the repricer's `buybox_approach` (strategies/table.ts) gives its steps, each
 *     a limit against one rival; the raw target is the lowest (none: alone);
 *  3. the bounds: alone, the ceiling (`no_competition`); under the floor, the floor rounded up
 *     to the grid (`floor`: never under the floor, even to win); above the ceiling, the ceiling
 *     rounded down (`ceiling`); else the raw target, with the reason of the step that set it.
 *     The product's rrp, where the marketplace has one, is a ceiling too: the lower of the two
 *     holds (the explanation lists it as its own bound).
 * The decision, the preview and the stored explanation all come from that one plan.
 * A decision is only made when the target differs from the own offer's price and from the
 * last decision for that offer, so the same inputs never decide twice and a price that comes
 * back from the marketplace starts no loop.
 */
export { PRICE_CHANGE_REASON_VALUES as PRICE_CHANGE_REASONS } from './records.js';
export type PriceChangeReason = PriceChange['reason'];

export { DEFAULT_PRICE_STEP } from './records.js';
/** Days a price change is kept (a stack parameter; DynamoDB's TTL deletes it after). */
export const DEFAULT_PRICE_CHANGE_RETENTION_DAYS = 90;

/** The filters are optional: left out, they filter nothing (the defaults of a repricer); so is the approach (`cheapest`, `fixed`). */
export interface EngineRepricer extends EngineFilters {
  readonly enabled: boolean;
  readonly min_price: number;
  readonly preferred_price: number;
  readonly connector: string;
  readonly buybox_approach?: BuyboxApproach;
  readonly repricer_approach?: RepricerApproach;
}

export interface EngineOffer extends FilteredOffer {
  readonly offer_id: string;
  readonly offer_price: number;
  readonly offer_status: string;
  readonly connector: string;
  /** Whether the client itself sells it. */
  readonly own: boolean;
}

/** What the engine knows of the product beyond its offers. */
export interface EngineContext {
  /** The product's in-stock premium on the connector; DEFAULT_IN_STOCK_PREMIUM when not given. */
  readonly premium?: InStockPremium;
  /**
   * The marketplace's rrp for the product: it refuses a price above it, so the target is held to
   * it like a second ceiling. Absent (or 0): no such bound.
   */
  readonly rrp?: number;
}

export interface Target {
  readonly price: number;
  readonly reason: PriceChangeReason;
  /** The competitor the target was set against (for `cheapest` and `match` the lowest), when there is one. */
  readonly lowest?: { readonly price: number; readonly offerId: string };
}

export interface Decision extends Target {
  readonly offerId: string;
  readonly oldPrice: number;
}

export const BUYABLE = 'buyable';

/** Why an offer is not a competitor of the repricer; undefined when it is one. */
export type CompetitorExclusion = 'own' | 'other_connector' | 'not_buyable' | CompetitorFilterName;

export const competitorExclusion = (repricer: EngineRepricer, offer: EngineOffer): CompetitorExclusion | undefined => {
  if (offer.own) return 'own';
  if (offer.connector !== repricer.connector) return 'other_connector';
  if (offer.offer_status !== BUYABLE) return 'not_buyable';
  return excludingFilter(repricer, offer);
};

const stepCents = (priceStep: number): bigint => {
  const step = toCents(priceStep);
  if (step <= 0n) throw new RangeError(`The price step must be positive, got ${priceStep}`);
  return step;
};

/** The floor and the ceiling on the step grid, in cents: the floor rounded up, the ceiling down. */
export const gridBounds = (repricer: EngineRepricer, priceStep: number): { floor: bigint; ceiling: bigint } => {
  const step = stepCents(priceStep);
  return { floor: ceilTo(toCents(repricer.min_price), step), ceiling: floorTo(toCents(repricer.preferred_price), step) };
};

/** One step under the lowest competitor, rounded down to the grid, in cents. */
export const undercutCents = (lowestPrice: number, priceStep: number): bigint => {
  const step = stepCents(priceStep);
  return floorTo(toCents(lowestPrice) - step, step);
};

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byPriceThenId = (a: { cents: bigint; offer_id: string }, b: { cents: bigint; offer_id: string }) =>
  (a.cents < b.cents ? -1 : a.cents > b.cents ? 1 : 0) || compareText(a.offer_id, b.offer_id);

/** The lowest competitor: lowest price first, among equal prices the smallest offer id, so the result never depends on input order. */
export const lowestOf = (competitors: readonly EngineOffer[]): EngineOffer | undefined =>
  [...competitors].sort((a, b) => Number(toCents(a.offer_price) - toCents(b.offer_price)) || (a.offer_id < b.offer_id ? -1 : 1))[0];

/** The own offers' stock mode: leadtime if any is, in stock if all are, else unknown. */
const ownStockOf = (repricer: EngineRepricer, offers: readonly EngineOffer[]): StockStatus | null => {
  const modes = offers.filter((offer) => offer.own && offer.connector === repricer.connector).map((offer) => offer.stock_status);
  if (modes.includes('lead_time')) return 'lead_time';
  return modes.length > 0 && modes.every((mode) => mode === 'in_stock') ? 'in_stock' : null;
};

const REASON_OF_RULE: { readonly [Rule in StepRule]: PriceChangeReason } = { undercut: 'undercut', match: 'match', in_stock_premium: 'in_stock_premium' };

/** The engine's plan for a repricer: its target (undefined when no grid price lies between floor and ceiling) and why. */
export interface Plan {
  readonly target: Target | undefined;
  readonly explanation: TargetExplanation;
}

const described = (offer: { offer_id: string; seller_id: string | null; price: number }): ExplainedCompetitor => ({
  offer_id: offer.offer_id,
  seller_id: offer.seller_id,
  price: offer.price,
});

/** The one pipeline: filters, then the approach's strategy, then the bounds. */
export const planTarget = (repricer: EngineRepricer, offers: readonly EngineOffer[], priceStep: number, context: EngineContext = {}): Plan => {
  const step = stepCents(priceStep);
  const approach = repricer.buybox_approach ?? 'cheapest';
  const premium = context.premium ?? DEFAULT_IN_STOCK_PREMIUM;
  const rivals: Rival[] = [];
  const excluded: ExcludedCompetitor[] = [];
  for (const offer of offers) {
    const by = competitorExclusion(repricer, offer);
    const seen = { offer_id: offer.offer_id, seller_id: offer.seller_id ?? null, price: offer.offer_price };
    // The client's own offers are what is repriced, not competitors: neither list names them.
    if (by === undefined) rivals.push({ ...seen, cents: toCents(offer.offer_price), stock_status: offer.stock_status ?? null });
    else if (by !== 'own') excluded.push({ ...seen, by });
  }
  rivals.sort(byPriceThenId);
  // What is excluded only needs an order that never depends on the input's.
  excluded.sort((a, b) => a.price - b.price || compareText(a.offer_id, b.offer_id));
  const ownStock = ownStockOf(repricer, offers);
  const steps = strategyOf(approach).steps({ rivals, ownStock, stepCents: step, premium });
  // The lowest limit sets the raw target; of equal limits, the earlier step (the strategy's order).
  const binding = steps.reduce<StrategyStep | undefined>((low, s) => (low === undefined || s.limitCents < low.limitCents ? s : low), undefined);

  const { floor, ceiling } = gridBounds(repricer, priceStep);
  // The marketplace refuses a price above its rrp: rounded down to the grid, the lower ceiling holds.
  const rrp = context.rrp !== undefined && context.rrp > 0 ? floorTo(toCents(context.rrp), step) : undefined;
  const top = rrp !== undefined && rrp < ceiling ? rrp : ceiling;
  let target: Target | undefined;
  if (floor <= top) {
    if (!binding) target = { price: centsToNumber(top), reason: 'no_competition' };
    else {
      const raw = binding.limitCents;
      const [cents, reason]: [bigint, PriceChangeReason] = raw < floor ? [floor, 'floor'] : raw > top ? [top, 'ceiling'] : [raw, REASON_OF_RULE[binding.rule]];
      target = { price: centsToNumber(cents), reason, lowest: { price: binding.rival.price, offerId: binding.rival.offer_id } };
    }
  }
  const heldToTop = target?.reason === 'ceiling' || target?.reason === 'no_competition';
  const explanation: TargetExplanation = {
    approach: { buybox_approach: approach, repricer_approach: repricer.repricer_approach ?? 'fixed' },
    competitors: {
      considered: rivals.slice(0, MAX_LISTED_COMPETITORS).map(described),
      excluded: excluded.slice(0, MAX_LISTED_COMPETITORS),
    },
    competitor_counts: { considered: rivals.length, excluded: excluded.length },
    own_stock_status: ownStock,
    in_stock_premium:
      approach === 'buybox' ? { low_percent: premium.low_percent, high_percent: premium.high_percent, observations: premium.observations } : null,
    price_step: centsToNumber(step),
    steps: steps.map((s) => ({
      rule: s.rule,
      ...described(s.rival),
      stock_status: s.rival.stock_status,
      premium_percent: s.premiumPercent,
      limit: centsToNumber(s.limitCents),
    })),
    raw_target: binding ? centsToNumber(binding.limitCents) : null,
    // The engine holds the raw target to the floor first, then to the ceiling, then to the rrp; alone, the lower ceiling is the price.
    bounds: [
      { bound: 'floor', value: centsToNumber(floor), applied: target?.reason === 'floor' },
      { bound: 'ceiling', value: centsToNumber(ceiling), applied: heldToTop && top === ceiling },
      ...(rrp === undefined ? [] : [{ bound: 'rrp' as const, value: centsToNumber(rrp), applied: heldToTop && top !== ceiling }]),
    ],
    final_price: target?.price ?? null,
    reason: target?.reason ?? null,
  };
  return { target, explanation };
};

/** The target price for the repricer's offer; undefined when no price on the grid lies between floor and ceiling. */
export const targetPrice = (repricer: EngineRepricer, offers: readonly EngineOffer[], priceStep: number, context: EngineContext = {}): Target | undefined =>
  planTarget(repricer, offers, priceStep, context).target;

/** The decisions of one repricer with the explanation they share: one plan, so the two cannot disagree. */
export const decideExplained = (
  repricer: EngineRepricer,
  offers: readonly EngineOffer[],
  priceStep: number,
  lastDecided: (offerId: string) => number | undefined,
  context: EngineContext = {},
): { readonly decisions: Decision[]; readonly explanation: TargetExplanation | undefined } => {
  if (!repricer.enabled) return { decisions: [], explanation: undefined };
  const { target, explanation } = planTarget(repricer, offers, priceStep, context);
  if (!target) return { decisions: [], explanation };
  const decisions = offers
    .filter((offer) => offer.own && offer.connector === repricer.connector)
    .filter((offer) => toCents(offer.offer_price) !== toCents(target.price) && lastDecided(offer.offer_id) !== target.price)
    .map((offer) => ({ ...target, offerId: offer.offer_id, oldPrice: offer.offer_price }));
  return { decisions, explanation };
};

/**
 * The decisions of one repricer: one per own offer on its connector whose price is not yet the
 * target, unless that target was already decided last time.
 */
export const decide = (
  repricer: EngineRepricer,
  offers: readonly EngineOffer[],
  priceStep: number,
  lastDecided: (offerId: string) => number | undefined,
  context: EngineContext = {},
): Decision[] => decideExplained(repricer, offers, priceStep, lastDecided, context).decisions;
