import * as z from 'zod';
import type { MarketOffer, ProductMarket } from './storefront-page.js';
import { toCents } from './money.js';
import { storableNumber } from './numbers.js';
import { money, priceStep } from './records.js';
import { text } from './text.js';

/**
 * What a product's storefront page says about each offer on it (docs/market-sync.md): the buy
 * box fields of docs/design.md, "The marketplace loop", derived by one pure function. Exact (integer cents),
 * deterministic, and independent of the order the page lists its offers in.
 */
export type Competitiveness = 'high' | 'medium' | 'low';

/** The fields that depend on the whole page, not on one offer alone. */
export interface BuyBoxFields {
  /** Holds the Best Price slot. */
  readonly winning: boolean;
  /** Holds the Fastest Delivery slot. */
  readonly winning_delivery: boolean;
  /** The Best Price slot's price, the same for every offer of the page; null when nobody holds the slot. */
  readonly winning_price: number | null;
  /** The offers of other sellers on the page (one per seller), seen from this offer. */
  readonly total_competitors: number;
  readonly competitiveness: Competitiveness;
}

/** One seller's offer on the page, with what the page says about it. */
export interface PageOffer extends BuyBoxFields {
  readonly sellerId: string;
  /** Whether the seller is the client itself. */
  readonly own: boolean;
  readonly price: number;
  readonly stock_status: 'in_stock' | 'lead_time';
  readonly seller_name: string;
  readonly rating_avg: number;
  /** Numeric text, as the interface's offer record carries it. */
  readonly rating_count: string;
}

export interface MarketView {
  readonly productLineId: string;
  readonly winningPrice: number | null;
  /** One per seller on the page, ordered by seller id. */
  readonly offers: readonly PageOffer[];
  /** Entries with a malformed or unstorable value, left out of everything. */
  readonly skipped: number;
  /** Further entries of a seller already on the page, merged into that seller's offer. */
  readonly merged: number;
  /** The buy box fields of an own offer the page does not show, at the price the client has for it. */
  readonly absentOffer: (price: number) => BuyBoxFields;
}

export interface MarketContext {
  /** The client's seller id on the marketplace: its entries are the own offer. */
  readonly ownSellerId: string;
  /** The connector's price increment (docs/repricing.md): "within one step" is measured in it. */
  readonly priceStep: number;
}

/**
 * A competitor's offer id: the same seller on the same variant (pageVariantKey: the product
 * line, or line and variant) gets the same id on every sync. Its parts are bounded (uid 32,
 * variant key 48, seller id 45) so it always fits an offer id's 128 characters.
 */
export const competitorOfferId = (connector: string, productLineId: string, sellerId: string): string => `${connector}:${productLineId}:${sellerId}`;

/**
 * The part of a competitor offer's id that names the variant the page showed, when the page
 * showed the product's own variant; undefined when it did not (docs/market-sync.md, "Variants").
 * A page of one variant is its product line's: its offers are keyed by the line as they always
 * were, and a product whose variant is not known yet takes them. A page of several variants
 * shows one variant's buy box: only a product of that very variant takes it, keyed by line and
 * variant, so no page ever moves the offers of one variant to another.
 */
export const pageVariantKey = (
  market: Pick<ProductMarket, 'productLineId' | 'variantId' | 'multiVariant'>,
  productVariantId: string | undefined,
): string | undefined => {
  const shown = market.variantId;
  if (market.multiVariant === true) return shown !== undefined && shown === productVariantId ? `${market.productLineId}~${shown}` : undefined;
  return shown !== undefined && productVariantId !== undefined && shown !== productVariantId ? undefined : market.productLineId;
};

/**
 * A page on which entries were left out (no seller, no price, an unstorable value) and no rival
 * could be read: it does not show the product alone, only that its rivals could not be seen.
 */
export const rivalsUnreadable = (view: Pick<MarketView, 'offers' | 'skipped'>, pageSkipped: number): boolean =>
  view.skipped + pageSkipped > 0 && view.offers.every((offer) => offer.own);

/** An entry of the page the service can store: every text storable and bounded, every number exact and in range. */
const pageEntry = z.object({
  sellerId: text().min(1).max(45),
  sellerName: text().max(200),
  sku: text().max(128).optional(),
  price: money.refine((value) => value > 0, { message: 'Must be positive.' }),
  inStock: z.boolean(),
  leadtimeDays: z.int().min(0).max(365).optional(),
  ratingAvg: storableNumber().min(0).max(5).optional(),
  ratingCount: z.int().min(0).max(999_999_999_999).optional(),
  isMarketplaceItself: z.boolean(),
  bestPrice: z.boolean(),
  fastestDelivery: z.boolean(),
});
export const productLineId = text().min(1).max(48);

interface Entry {
  readonly offer: MarketOffer;
  readonly cents: bigint;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const compareCents = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const flag = (value: boolean) => (value ? 0 : 1);

/** A total order of entries (every field takes part), so which entry represents a seller never depends on the page's order. */
const entryOrder = (a: Entry, b: Entry): number =>
  flag(a.offer.bestPrice) - flag(b.offer.bestPrice) ||
  flag(a.offer.fastestDelivery) - flag(b.offer.fastestDelivery) ||
  compareCents(a.cents, b.cents) ||
  flag(a.offer.inStock) - flag(b.offer.inStock) ||
  compareText(JSON.stringify(sortedEntry(a.offer)), JSON.stringify(sortedEntry(b.offer)));
const sortedEntry = (offer: MarketOffer) => Object.entries(offer).sort(([x], [y]) => compareText(x, y));

/** Fastest first: in stock, then the shorter lead time, then the lower price. */
const deliveryOrder = (a: Entry, b: Entry): number =>
  flag(a.offer.inStock) - flag(b.offer.inStock) ||
  (a.offer.leadtimeDays ?? 0) - (b.offer.leadtimeDays ?? 0) ||
  compareCents(a.cents, b.cents) ||
  compareText(a.offer.sellerId, b.offer.sellerId);
const priceOrder = (a: Entry, b: Entry): number => compareCents(a.cents, b.cents) || compareText(a.offer.sellerId, b.offer.sellerId);

/**
 * `high`: holds a buy-box slot, or is at most one step above the reference price (or below it);
 * `medium`: at most 10 % above it; `low`: above that. The reference is the Best Price slot's
 * price, or, when nobody holds the slot, the lowest price on the page; a page without offers
 * leaves nothing to be behind, so `high`.
 */
export const competitivenessOf = (priceCents: bigint, referenceCents: bigint | null, holdsSlot: boolean, stepCents: bigint): Competitiveness => {
  if (holdsSlot || referenceCents === null || priceCents - referenceCents <= stepCents) return 'high';
  return priceCents * 100n <= referenceCents * 110n ? 'medium' : 'low';
};

/** The derivation: one offer per seller on the page, with the buy box fields of each. */
export const deriveMarketView = (market: ProductMarket, { ownSellerId, priceStep: step }: MarketContext): MarketView => {
  const stepCents = toCents(priceStep.parse(step));
  let skipped = 0;
  const bySeller = new Map<string, Entry[]>();
  for (const offer of market.offers) {
    const parsed = pageEntry.safeParse(offer);
    if (!parsed.success) {
      skipped++;
      continue;
    }
    const entry = { offer: parsed.data, cents: toCents(parsed.data.price) };
    bySeller.set(offer.sellerId, [...(bySeller.get(offer.sellerId) ?? []), entry]);
  }

  // A seller listed twice is one offer (its stable id names the seller): the entry holding most, then the cheapest.
  let merged = 0;
  const sellers = [...bySeller.keys()].sort(compareText).map((sellerId) => {
    const entries = [...(bySeller.get(sellerId) ?? [])].sort(entryOrder);
    merged += entries.length - 1;
    const [first] = entries as [Entry, ...Entry[]];
    return {
      ...first,
      offer: { ...first.offer, bestPrice: entries.some((e) => e.offer.bestPrice), fastestDelivery: entries.some((e) => e.offer.fastestDelivery) },
    };
  });

  // One holder per slot, even when the page flags several.
  const [bestHolder] = sellers.filter((s) => s.offer.bestPrice).sort(priceOrder);
  const [fastestHolder] = sellers.filter((s) => s.offer.fastestDelivery).sort(deliveryOrder);
  const [cheapest] = [...sellers].sort(priceOrder);
  const winningCents = bestHolder?.cents ?? null;
  const referenceCents = winningCents ?? cheapest?.cents ?? null;
  const winningPrice = bestHolder ? bestHolder.offer.price : null;

  const offers = sellers.map(({ offer, cents }): PageOffer => {
    const winning = offer.sellerId === bestHolder?.offer.sellerId;
    const winningDelivery = offer.sellerId === fastestHolder?.offer.sellerId;
    return {
      sellerId: offer.sellerId,
      own: offer.sellerId === ownSellerId,
      price: offer.price,
      winning,
      winning_delivery: winningDelivery,
      winning_price: winningPrice,
      total_competitors: sellers.length - 1,
      competitiveness: competitivenessOf(cents, referenceCents, winning || winningDelivery, stepCents),
      stock_status: offer.inStock ? 'in_stock' : 'lead_time',
      seller_name: offer.sellerName,
      rating_avg: offer.ratingAvg ?? 0,
      rating_count: String(offer.ratingCount ?? 0),
    };
  });

  const absentOffer = (price: number): BuyBoxFields => ({
    winning: false,
    winning_delivery: false,
    winning_price: winningPrice,
    // Every seller on the page competes with an offer that is not on it.
    total_competitors: sellers.filter((s) => s.offer.sellerId !== ownSellerId).length,
    competitiveness: competitivenessOf(toCents(money.parse(price)), referenceCents, false, stepCents),
  });

  return { productLineId: market.productLineId, winningPrice, offers, skipped, merged, absentOffer };
};
