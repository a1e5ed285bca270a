import * as z from 'zod';
import { MARKET_TIMING } from '../config/market-sync.js';
import { observePremium, type InStockPremium } from './in-stock-premium.js';
import { sameJson } from './json.js';
import {
  competitorOfferId,
  deriveMarketView,
  pageVariantKey,
  productLineId,
  rivalsUnreadable,
  type BuyBoxFields,
  type MarketView,
  type PageOffer,
} from './market-snapshot.js';
import { marketAfterRead, type MarketState, type MarketUnknownReason } from './market-state.js';
import { money, offerFields, productCode, productFields, type OfferFields, type Product } from './records.js';
import type { ProductMarket } from './storefront-page.js';

/**
 * What a marketplace sync makes of what it saw (docs/market-sync.md), as plans: given what was
 * read (the seller API's own offers, a product's storefront page) and what is stored, which
 * products and offers to write, which offers to mark off the market, which beliefs about an own
 * offer's price to end, and what to record of the product's market. Pure: the use cases
 * (lambdas/market/market-sync.ts) read, plan and hand the plan to the data layer, which writes it.
 * Every plan holds only what changed: an item equal to the stored one (its `last_seen_at` aside)
 * is not written, so a sync that finds nothing new writes nothing.
 */
export interface SyncConnector {
  /** The connector type's uid: the offers' `connector`. */
  readonly uid: string;
  /** The client's seller id on the marketplace: the page's entries with it are the own offer. */
  readonly sellerId: string;
  /** The storefront's base URL (a setting of the stage): the `url` of offers until a page names one. */
  readonly storefrontUrl: string;
  /** When the client last resumed the connection: the first read after it is recorded (the price sender waits for it). */
  readonly resumedAt?: string | undefined;
}

/**
 * The own offers' `seller_id` until a product page has shown the client's seller id (the seller
 * API does not tell it): the first page that lists one of the client's SKUs does, and from then
 * on every own offer a page shows carries it.
 */
export const UNKNOWN_SELLER_ID = 'unknown';
/** The status of an offer no longer on the market: a competitor off its product's page, an own offer the marketplace no longer has. */
export const OFF_MARKET_STATUS = 'not_buyable';
/** The competitiveness of an own offer whose product's page has not been read yet. */
export const UNSEEN_COMPETITIVENESS = 'unknown';
/** Problems reported per call, at most (the count is exact). */
const MAX_PROBLEMS = 20;

export interface WriteCounts {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

/** An offer as stored, as far as a plan reads it. */
export interface KnownOffer {
  readonly product_code: string;
  readonly connector: string;
  readonly scope: 'own' | 'other';
  readonly fields: OfferFields;
  /** The stored copy's version: a write replaces only this copy. */
  readonly updated_at: string;
  /** When its writer saw the offer at `offer_price`. */
  readonly price_at?: string | undefined;
}

/** An offer to write: its fields, where it is, and the copy it was computed from. */
export interface OfferWrite extends OfferFields {
  readonly product_code: string;
  readonly connector: string;
  readonly basis?: {
    /** The `updated_at` of the copy read; null: none (the write creates the offer). */
    readonly readVersion: string | null;
    /** The price was looked at anew: `price_at` becomes the write's time even when the price is the one stored. */
    readonly priceSeen?: boolean;
  };
}

/** The price the service believes the marketplace has for an own offer, and since when. */
export interface PriceBelief {
  readonly price: number;
  readonly at: string;
}

/** A belief a look contradicted: the decision states of the offer that took `contradicted` for live are to be ended. */
export interface BeliefEnd {
  readonly productCode: string;
  readonly offerId: string;
  readonly contradicted: number;
}

const ownSnapshot = z.object({
  offerId: offerFields.shape.offer_id,
  sku: productCode,
  barcode: productFields.shape.barcode.optional(),
  title: productFields.shape.title,
  productLineId: productLineId.optional(),
  // A variant id the service cannot store leaves the variant unknown (never priced from a page of several), not the offer unsynced.
  variantId: productLineId.optional().catch(undefined),
  sellingPrice: money,
  rrp: money.optional(),
  status: offerFields.shape.offer_status,
  leadtimeDays: z.int().min(0).optional(),
  stockOnHand: productFields.shape.soh,
  shipsNow: z.boolean().optional(),
});
export type OwnSnapshot = z.infer<typeof ownSnapshot>;

/** An offer's `url` as the service stores it. */
export const storefrontUrl = offerFields.shape.url;

const problemOf = (what: string, error: z.ZodError) => {
  const [issue] = error.issues;
  return `${what}: ${issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'invalid'}`;
};

/** The snapshots a sync can store: one with a malformed or unstorable value, or an offer id or SKU seen earlier, is skipped whole and counted. */
export const parseOwnSnapshots = (
  snapshots: readonly unknown[],
): { readonly valid: readonly OwnSnapshot[]; readonly skipped: number; readonly problems: readonly string[] } => {
  const problems: string[] = [];
  const valid: OwnSnapshot[] = [];
  const offerIds = new Set<string>();
  const skus = new Set<string>();
  let skipped = 0;
  const skip = (problem: string) => {
    skipped++;
    if (problems.length < MAX_PROBLEMS) problems.push(problem);
  };
  snapshots.forEach((snapshot, index) => {
    const parsed = ownSnapshot.safeParse(snapshot);
    if (!parsed.success) return skip(problemOf(`own offer ${index + 1}`, parsed.error));
    const { offerId, sku } = parsed.data;
    if (offerIds.has(offerId) || skus.has(sku)) return skip(`own offer ${index + 1}: offer id or SKU repeats an earlier one`);
    offerIds.add(offerId);
    skus.add(sku);
    valid.push(parsed.data);
  });
  return { valid, skipped, problems };
};

/** A product as stored, with the marketplace's ids kept beside its record. */
export interface KnownProduct {
  readonly record: Product;
  readonly productLineId?: string | undefined;
  readonly variantId?: string | undefined;
}

/** What a sync writes of the products: new ones (their ids to be given), and changed ones. */
export interface ProductPlan {
  readonly create: readonly { readonly draft: Omit<Product, 'id'>; readonly productLineId?: string | undefined; readonly variantId?: string | undefined }[];
  readonly update: readonly KnownProduct[];
  readonly unchanged: number;
}

/** A product created by a sync: what the seller API tells, and empty values for what only an import can. */
const newProduct = (snapshot: OwnSnapshot, imageUrl: string, now: string): Omit<Product, 'id'> => ({
  code: snapshot.sku,
  title: snapshot.title,
  description: '',
  brand: '',
  colour: '',
  barcode: snapshot.barcode ?? '',
  type: null,
  material: null,
  parent_code: null,
  images: null,
  main_image: imageUrl,
  retail_price: snapshot.rrp ?? 0,
  soh: snapshot.stockOnHand,
  height_cm: 0,
  length_cm: 0,
  width_cm: 0,
  weight_g: 0,
  fee_estimates: null,
  created_at: now,
  updated_at: now,
});

/** The products of the snapshots (code = SKU): title, barcode, RRP, stock on hand, product line and variant ids kept current, nothing else touched. */
export const planOwnProducts = (snapshots: readonly OwnSnapshot[], stored: ReadonlyMap<string, KnownProduct>, imageUrl: string, now: string): ProductPlan => {
  const create: ProductPlan['create'][number][] = [];
  const update: KnownProduct[] = [];
  for (const snapshot of snapshots) {
    const before = stored.get(snapshot.sku);
    if (!before) {
      create.push({ draft: newProduct(snapshot, imageUrl, now), productLineId: snapshot.productLineId, variantId: snapshot.variantId });
      continue;
    }
    // The marketplace's RRP is the ceiling it enforces on prices, so the sender checks against it: kept current.
    const record = {
      ...before.record,
      title: snapshot.title,
      barcode: snapshot.barcode ?? before.record.barcode,
      retail_price: snapshot.rrp ?? before.record.retail_price,
      // The stock mode (soh > 0) picks a cost_based repricer's fees: the list maintainer prices its bounds again from it.
      soh: snapshot.stockOnHand,
    };
    const lineId = snapshot.productLineId ?? before.productLineId;
    const variantId = snapshot.variantId ?? before.variantId;
    if (sameJson(record, before.record) && lineId === before.productLineId && variantId === before.variantId) continue;
    // A new product line id alone leaves the record (and so every listing of the product) as it was.
    const recordChanged = !sameJson(record, before.record);
    update.push({ record: { ...record, updated_at: recordChanged ? now : before.record.updated_at }, productLineId: lineId, variantId });
  }
  return { create, update, unchanged: snapshots.length - create.length - update.length };
};

/**
 * An offer whose fields differ from what is stored (its last_seen_at aside), or that is new, or
 * that moves, or whose price was looked at anew (`basis.priceSeen`); written only over the copy
 * it was computed from (`before`). Undefined: nothing to write.
 */
export const changedOffer = (before: KnownOffer | undefined, input: OfferWrite, onPage: boolean, now: string): OfferWrite | undefined => {
  const { product_code, connector, basis, ...fields } = input;
  if (
    before &&
    !basis?.priceSeen &&
    before.product_code === product_code &&
    before.connector === connector &&
    sameJson({ ...before.fields, last_seen_at: null }, { ...fields, last_seen_at: null })
  ) {
    return undefined;
  }
  return { ...input, last_seen_at: onPage ? now : (before?.fields.last_seen_at ?? null), basis: { ...basis, readVersion: before?.updated_at ?? null } };
};

/** An offer taken off the market: not buyable and without a buy-box slot, the rest as it was; undefined when it is so already. */
export const offMarketOffer = (before: KnownOffer, uid: string, now: string): OfferWrite | undefined =>
  changedOffer(
    before,
    { ...before.fields, offer_status: OFF_MARKET_STATUS, winning: false, winning_delivery: false, product_code: before.product_code, connector: uid },
    false,
    now,
  );

/** The own offers the marketplace no longer has: not buyable, without slots; one already marked is not written again. */
export const planOffMarket = (offers: readonly KnownOffer[], uid: string, now: string): readonly OfferWrite[] =>
  offers.flatMap((before) => offMarketOffer(before, uid, now) ?? []);

/**
 * What a look at an own offer's price at `at` (a sync's, or a page's) makes of it: the
 * marketplace is the truth for prices. A look older than the price stored (its `price_at`)
 * changes nothing. One that shows another price than the one the service believes live
 * (`believed`), and is newer than that belief, ends the belief (`contradicted`: the
 * confirmations before it, and the last decision that took its price for live), so the offer is
 * decided again, and is recorded as seen now (`priceSeen`), even when the price is the one a sync
 * stored before.
 */
export const lookAtOwnPrice = (
  before: KnownOffer,
  believed: PriceBelief,
  seen: number,
  at: string,
): { readonly price: number; readonly priceSeen: boolean; readonly contradicted?: number } => {
  if (before.price_at !== undefined && before.price_at > at) return { price: before.fields.offer_price, priceSeen: false };
  if (seen === believed.price || believed.at >= at) return { price: seen, priceSeen: false };
  return { price: seen, priceSeen: true, contradicted: believed.price };
};

/** Offers to write, the beliefs to end before them, and how many offers were considered (for the counts). */
export interface OfferPlan {
  readonly writes: readonly OfferWrite[];
  readonly endBeliefs: readonly BeliefEnd[];
  readonly considered: number;
}

const beliefEnd = (before: KnownOffer, look: { readonly contradicted?: number }): BeliefEnd[] =>
  look.contradicted === undefined ? [] : [{ productCode: before.product_code, offerId: before.fields.offer_id, contradicted: look.contradicted }];

/**
 * The seller's own offers of the snapshots. An own offer takes price, status and stock status
 * (`in_stock` when it ships now from the marketplace's warehouses, else `lead_time`) from the
 * snapshot and keeps its buy box fields, which only a read of the product's page changes.
 */
export const planOwnOffers = <O extends KnownOffer>(input: {
  readonly snapshots: readonly OwnSnapshot[];
  /** The offers stored under the snapshots' offer ids, wherever their product is. */
  readonly stored: ReadonlyMap<string, O>;
  /** What the service believes of a stored own offer's price (from its decision states). */
  readonly believed: (offer: O) => PriceBelief;
  readonly connector: SyncConnector;
  readonly imageUrl: string;
  readonly now: string;
}): OfferPlan => {
  const { snapshots, stored, believed, connector, imageUrl, now } = input;
  const endBeliefs: BeliefEnd[] = [];
  const writes = snapshots.flatMap((snapshot) => {
    const before = stored.get(snapshot.offerId);
    const look = before ? lookAtOwnPrice(before, believed(before), snapshot.sellingPrice, now) : undefined;
    if (before && look) endBeliefs.push(...beliefEnd(before, look));
    const base: OfferFields = before?.fields ?? {
      offer_id: snapshot.offerId,
      offer_price: snapshot.sellingPrice,
      offer_status: snapshot.status,
      stock_status: 'in_stock',
      competitiveness: UNSEEN_COMPETITIVENESS,
      total_competitors: 0,
      winning: false,
      winning_delivery: false,
      winning_price: 0,
      rating_avg: 0,
      rating_count: '0',
      seller_id: connector.sellerId,
      seller_name: '',
      url: imageUrl,
      last_seen_at: null,
    };
    const write: OfferWrite = {
      ...base,
      offer_price: look?.price ?? snapshot.sellingPrice,
      offer_status: snapshot.status,
      stock_status: (snapshot.shipsNow ?? snapshot.stockOnHand > 0) ? 'in_stock' : 'lead_time',
      seller_id: connector.sellerId,
      product_code: snapshot.sku,
      connector: connector.uid,
      ...(before && look?.priceSeen ? { basis: { readVersion: before.updated_at, priceSeen: true } } : {}),
    };
    const changed = changedOffer(before, write, false, now);
    return changed ? [changed] : [];
  });
  return { writes, endBeliefs, considered: snapshots.length };
};

/** What a page says of a product before anything stored is compared with it. */
export type PageReading =
  | { readonly kind: 'malformed'; readonly problem: string }
  | { readonly kind: 'no-product' }
  /** The page showed no buy box: the market is unknown again (`empty_page`), and nothing of the page is written. */
  | { readonly kind: 'unseen' }
  /**
   * The page showed a buy box, but not one to price this product from: another variant of its
   * product line, or no readable rival beside entries it could not read. The market is
   * unknown, and nothing of the page is written.
   */
  | { readonly kind: 'unknown'; readonly reason: 'variant_not_shown' | 'rivals_unreadable'; readonly skipped: number }
  | {
      readonly kind: 'shown';
      readonly view: MarketView;
      /** The offer ids of the competitors on the page, in the view's order. */
      readonly competitorIds: readonly string[];
      /** Entries left out, by the adapter and the derivation. */
      readonly skipped: number;
    };

/**
 * Reads a product's storefront page: whether it is the product's market (its own variant, a
 * rival or nothing unreadable: docs/market-sync.md, "Variants"), and if so the view of it and
 * the ids of its competitors' offers (the variant's own).
 */
export const readPage = (
  market: ProductMarket,
  product: { readonly variantId?: string | undefined; readonly priceStep: number } | undefined,
  connector: Pick<SyncConnector, 'uid' | 'sellerId'>,
): PageReading => {
  const lineId = productLineId.safeParse(market.productLineId);
  if (!lineId.success) return { kind: 'malformed', problem: problemOf('productLineId', lineId.error) };
  if (!product) return { kind: 'no-product' };
  // A page of several variants without a buy box waits for a choice of variant: reading it again soon shows no more.
  if (!market.buyBoxShown && market.multiVariant !== true) return { kind: 'unseen' };
  const shown = pageVariantKey({ ...market, productLineId: lineId.data }, product.variantId);
  if (shown === undefined || !market.buyBoxShown) return { kind: 'unknown', reason: 'variant_not_shown', skipped: 0 };
  const variantKey = productLineId.safeParse(shown);
  if (!variantKey.success) return { kind: 'malformed', problem: problemOf('variantId', variantKey.error) };
  const view = deriveMarketView(market, { ownSellerId: connector.sellerId, priceStep: product.priceStep });
  const skipped = view.skipped + market.skipped;
  // No rival read beside entries that could not be: not seen alone, so not priced as alone.
  if (rivalsUnreadable(view, market.skipped)) return { kind: 'unknown', reason: 'rivals_unreadable', skipped };
  const competitorIds = view.offers.filter((offer) => !offer.own).map((offer) => competitorOfferId(connector.uid, variantKey.data, offer.sellerId));
  return { kind: 'shown', view, competitorIds, skipped };
};

const storedBuyBox = (fields: BuyBoxFields) => ({
  winning: fields.winning,
  winning_delivery: fields.winning_delivery,
  // The interface's winning_price is a number: 0 stands for "nobody holds the Best Price slot".
  winning_price: fields.winning_price ?? 0,
  total_competitors: fields.total_competitors,
  competitiveness: fields.competitiveness,
});
const pageFields = (offer: PageOffer) => ({
  seller_name: offer.seller_name,
  rating_avg: offer.rating_avg,
  rating_count: offer.rating_count,
});

export type PagePlan =
  /** The page's competitor offers are another product's (two products claiming one variant): not this product's market. */
  | { readonly kind: 'unknown'; readonly reason: 'variant_not_shown' }
  | (OfferPlan & {
      readonly kind: 'write';
      /** Competitor offers that left the page in this read (marked off the market). */
      readonly left: number;
    });

/**
 * Applies a page that is the product's market to its offers of this connector: the buy box
 * fields on every one (own ones included, as example C when the page does not show an own
 * offer), the competitors' offers upserted under ids of the variant, and competitors that left
 * the page marked off the market (once: an offer away from the page is not written again until
 * it comes back).
 */
export const planPage = <O extends KnownOffer>(input: {
  readonly code: string;
  readonly connector: SyncConnector;
  readonly market: Pick<ProductMarket, 'url'>;
  readonly reading: Extract<PageReading, { kind: 'shown' }>;
  /** The product's offers as stored (every connector). */
  readonly offers: readonly O[];
  /** The offers stored under the page's competitor ids, wherever their product is. */
  readonly competitors: ReadonlyMap<string, KnownOffer>;
  /** What the service believes of a stored own offer's price (from its decision states). */
  readonly believed: (offer: O) => PriceBelief;
  readonly now: string;
}): PagePlan => {
  const { code, connector, market, reading, offers, competitors: stored, believed, now } = input;
  const { view, competitorIds: ids } = reading;
  const uid = connector.uid;
  // Read wherever it is: an offer of this variant that another product holds (two products claiming one variant) is never moved.
  if ([...stored.values()].some((offer) => offer.product_code !== code)) return { kind: 'unknown', reason: 'variant_not_shown' };
  const pageUrl = storefrontUrl.safeParse(market.url);
  const urlOf = (before: KnownOffer | undefined) => (pageUrl.success ? pageUrl.data : (before?.fields.url ?? storefrontUrl.parse(connector.storefrontUrl)));

  const ofConnector = offers.filter((offer) => offer.connector === uid);
  const ownOnPage = view.offers.find((offer) => offer.own);
  const writes: OfferWrite[] = [];
  const endBeliefs: BeliefEnd[] = [];
  const consider = (before: KnownOffer | undefined, write: OfferWrite, onPage: boolean) => {
    const changed = changedOffer(before, write, onPage, now);
    if (changed) writes.push(changed);
  };

  const own = ofConnector.filter((offer) => offer.scope === 'own');
  for (const before of own) {
    const buyBox = ownOnPage ?? view.absentOffer(before.fields.offer_price);
    // The page's own price counts only against the one believed live (the seller API's stays otherwise).
    const look = ownOnPage ? lookAtOwnPrice(before, believed(before), ownOnPage.price, now) : undefined;
    if (look) endBeliefs.push(...beliefEnd(before, look));
    const fields = {
      ...before.fields,
      ...(look?.priceSeen ? { offer_price: look.price } : {}),
      ...storedBuyBox(buyBox),
      ...(ownOnPage ? { ...pageFields(ownOnPage), seller_id: connector.sellerId } : {}),
      url: urlOf(before),
    };
    const basis = look?.priceSeen ? { basis: { readVersion: before.updated_at, priceSeen: true } } : {};
    consider(before, { ...fields, product_code: code, connector: uid, ...basis }, ownOnPage !== undefined);
  }

  const competitors = view.offers.filter((offer) => !offer.own);
  competitors.forEach((offer, index) => {
    const offerId = ids[index]!;
    const before = stored.get(offerId);
    const fields: OfferFields = {
      offer_id: offerId,
      offer_price: offer.price,
      offer_status: 'buyable',
      stock_status: offer.stock_status,
      ...storedBuyBox(offer),
      ...pageFields(offer),
      seller_id: offer.sellerId,
      url: urlOf(before),
      last_seen_at: before?.fields.last_seen_at ?? null,
    };
    consider(before, { ...fields, product_code: code, connector: uid }, true);
  });

  const onPage = new Set(ids);
  let left = 0;
  for (const before of ofConnector.filter((offer) => offer.scope === 'other' && !onPage.has(offer.fields.offer_id))) {
    const write = offMarketOffer(before, uid, now);
    if (!write) continue;
    left++;
    writes.push(write);
  }
  return { kind: 'write', writes, endBeliefs, considered: own.length + competitors.length + left, left };
};

/** What to record of a product's market on a connector: its state, its in-stock premium, or both. */
export interface MarketRecord {
  readonly market?: MarketState | undefined;
  readonly premium?: InStockPremium | undefined;
}

/**
 * The record a read leaves of the product's market (domain/market-state.ts marketAfterRead), or
 * undefined when there is nothing to write. A premium alone needs a market already recorded (a
 * read that saw the buy box always records one first).
 */
export const marketRecord = (
  before: MarketState | undefined,
  seen: { readonly state: 'known' } | { readonly state: 'unknown'; readonly reason: MarketUnknownReason },
  now: string,
  confirmedAt?: string,
  premium?: InStockPremium,
): MarketRecord | undefined => {
  const next = marketAfterRead(before, seen, now, MARKET_TIMING, confirmedAt);
  return next || (premium && before) ? { market: next, premium } : undefined;
};

/**
 * The record of a page that was the product's market, after its offers were written: known,
 * and the in-stock premium it narrowed (domain/in-stock-premium.ts), only when it changed. The
 * first read after a price the marketplace confirmed, or after the client resumed the
 * connection, is recorded (the price sender waits for it).
 */
export const pageMarketRecord = (input: {
  readonly before: MarketState | undefined;
  readonly premiumBefore: InStockPremium;
  readonly view: MarketView;
  /** The decision states of the product: when the marketplace last confirmed a price of it. */
  readonly decisions: Iterable<{ readonly confirmedAt?: string | undefined }>;
  readonly resumedAt?: string | undefined;
  readonly now: string;
}): MarketRecord | undefined => {
  const premium = observePremium(input.premiumBefore, input.view);
  let confirmedAt: string | undefined;
  for (const state of input.decisions) {
    if (state.confirmedAt !== undefined && (confirmedAt === undefined || state.confirmedAt > confirmedAt)) confirmedAt = state.confirmedAt;
  }
  const { resumedAt } = input;
  const recordAfter = resumedAt !== undefined && (confirmedAt === undefined || resumedAt > confirmedAt) ? resumedAt : confirmedAt;
  return marketRecord(input.before, { state: 'known' }, input.now, recordAfter, premium === input.premiumBefore ? undefined : premium);
};
