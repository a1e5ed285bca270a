import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import {
  competitorOfferId,
  deriveMarketView,
  pageVariantKey,
  productLineId,
  rivalsUnreadable,
  type BuyBoxFields,
  type PageOffer,
} from '../../domain/market-snapshot.js';
import { connectorUid, money, offerFields, productCode, productFields, type OfferFields, type Product } from '../../domain/records.js';
import type { OwnOfferSnapshot, ProductMarket } from '../../marketplace/port.js';
import { batchGet, batchWrite } from '../table/batch.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { reserveIds } from '../table/counters.js';
import { sameJson } from '../table/json.js';
import { offerKey, offerLookupPartition, part } from '../table/keys.js';
import { cellScope, storedOffer, type StoredOffer } from '../offers/list.js';
import { offerLookup, planOffers, readLookups, writeOfferPlan, type OfferInput, type OfferOwner } from '../offers/write.js';
import { getStoredProducts, productItem } from '../offers/products.js';
import { MARKET_TIMING } from '../../config/market-sync.js';
import { marketAfterRead, type MarketState, type MarketUnknownReason } from '../../domain/market-state.js';
import { readMarketState, writeMarketState } from '../repricing/market-views.js';
import { believedOwnPrice, endPriceBeliefs, readDecisionStates, type DecisionState } from '../repricing/decision-states.js';
import { premiumOn, readProductForRepricing, type ProductForRepricing } from '../repricing/inputs.js';
import { priceStepOf } from '../connections/connectors.js';
import { mapLimit } from '../table/concurrency.js';
import { observePremium, type InStockPremium } from '../../domain/in-stock-premium.js';

/**
 * Applies what a marketplace sync saw (docs/market-sync.md): the seller's own offers, and a
 * product's storefront page. Both go through the same product and offer writes as imports, so
 * the list maintainer and the repricing evaluator see them through the table's stream, and
 * both write only what changed: every item is compared with what is stored first, and a sync
 * that finds nothing new writes nothing (no time stamp is refreshed on its own).
 *
 * The own-offer sync and the storefront reader run concurrently and write the same own offers:
 * each offer is written only over the copy its writer read (offers/write.ts OfferBasis), and
 * computed again from what is stored when the other changed it meanwhile. The own-offer syncs of
 * one connection run one at a time (its FIFO message group).
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

export interface OwnOffersResult {
  readonly products: WriteCounts;
  readonly offers: WriteCounts;
  /** Snapshots left out whole: a malformed or unstorable value, or an offer id or SKU seen earlier in the call. */
  readonly skipped: number;
  readonly problems: readonly string[];
}

export type ProductMarketResult =
  | { readonly kind: 'no-product' }
  | { readonly kind: 'malformed'; readonly problem: string }
  /** The page showed no buy box: the market is unknown again, and nothing of the page is written. */
  | { readonly kind: 'unseen' }
  /**
   * The page showed a buy box, but not one to price this product from: another variant of its
   * product line (or a variant already another product's), or no readable rival beside entries
   * it could not read. The market is unknown, and nothing of the page is written.
   */
  | { readonly kind: 'unknown'; readonly reason: 'variant_not_shown' | 'rivals_unreadable'; readonly skipped: number }
  | {
      readonly kind: 'applied';
      readonly offers: WriteCounts;
      /** Entries of the page left out (a malformed or unstorable value). */
      readonly skipped: number;
      /** Further entries of a seller already on the page. */
      readonly merged: number;
      /** Competitor offers that left the page in this sync. */
      readonly left: number;
    };

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
type OwnSnapshot = z.infer<typeof ownSnapshot>;

const storefrontUrl = offerFields.shape.url;

const ownerOf = (clientId: string, connector: SyncConnector): OfferOwner => ({ clientId, sellerId: connector.sellerId, defaultConnector: connector.uid });

const problemOf = (what: string, error: z.ZodError) => {
  const [issue] = error.issues;
  return `${what}: ${issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'invalid'}`;
};

/** A product created by a sync: what the seller API tells, and empty values for what only an import can. */
const newProduct = (snapshot: OwnSnapshot, imageUrl: string): Omit<Product, 'id' | 'created_at' | 'updated_at'> => ({
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
});

/** Upserts the products of the snapshots (code = SKU): title, barcode, RRP, stock on hand, product line and variant ids kept current, nothing else touched. */
const applyProducts = async (clientId: string, snapshots: readonly OwnSnapshot[], imageUrl: string, now: string): Promise<WriteCounts> => {
  const stored = await getStoredProducts(
    clientId,
    snapshots.map((s) => s.sku),
  );
  const fresh = snapshots.filter((s) => !stored.has(s.sku));
  let next = fresh.length > 0 ? await reserveIds('product', fresh.length) : 0;
  const items: ReturnType<typeof productItem>[] = [];
  for (const snapshot of snapshots) {
    const before = stored.get(snapshot.sku);
    if (!before) {
      items.push(
        productItem(clientId, { id: next++, ...newProduct(snapshot, imageUrl), created_at: now, updated_at: now }, snapshot.productLineId, snapshot.variantId),
      );
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
    items.push(productItem(clientId, { ...record, updated_at: recordChanged ? now : before.record.updated_at }, lineId, variantId));
  }
  await batchWrite(items.map((put) => ({ put })));
  return { created: fresh.length, updated: items.length - fresh.length, unchanged: snapshots.length - items.length };
};

/** The canonical offers stored under the given marketplace ids, wherever their product is. */
const readOffers = async (clientId: string, offerIds: readonly string[]): Promise<Map<string, StoredOffer>> => {
  const lookups = await readLookups(clientId, offerIds);
  const items = await batchGet([...lookups].map(([offerId, lookup]) => offerKey(clientId, lookup.productCode, offerId)));
  return new Map(items.map((item) => storedOffer.parse(item)).map((offer) => [offer.fields.offer_id, offer] as const));
};

/**
 * An offer whose fields differ from what is stored (its last_seen_at aside), or that is new, or
 * that moves, or whose price was looked at anew (`basis.priceSeen`); written only over the copy
 * it was computed from (`before`: offers/write.ts OfferBasis).
 */
const changedInput = (before: StoredOffer | undefined, input: OfferInput, onPage: boolean, now: string): OfferInput | undefined => {
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
const offMarketInput = (before: StoredOffer, uid: string, now: string): OfferInput | undefined =>
  changedInput(
    before,
    { ...before.fields, offer_status: OFF_MARKET_STATUS, winning: false, winning_delivery: false, product_code: before.product_code, connector: uid },
    false,
    now,
  );

/**
 * Writes the changed offers, each replacing only the version it was computed from (offers/write.ts
 * guarded): the own-offer sync and the storefront reader write the same own offers, each its own
 * fields, and neither may put back a copy the other has changed meanwhile. The offers another
 * writer changed come back unwritten, for the caller to compute again from what is stored now.
 */
const writeChanged = async (
  owner: OfferOwner,
  considered: number,
  inputs: readonly OfferInput[],
  now: string,
): Promise<{ readonly counts: WriteCounts; readonly conflicts: ReadonlySet<string> }> => {
  const plan = await planOffers(owner, inputs, now);
  const conflicts = new Set(await writeOfferPlan(plan, { guarded: true }));
  // The stale ones were never counted as written; those refused at the write were.
  const stale = new Set(plan.stale);
  const updated = plan.updated - inputs.filter((input) => conflicts.has(input.offer_id) && !stale.has(input.offer_id)).length;
  return { counts: { created: plan.created, updated: Math.max(0, updated), unchanged: considered - plan.created - Math.max(0, updated) }, conflicts };
};

/** How often a write that met another writer's change is computed again before the next sync takes over. */
const MAX_WRITE_ROUNDS = 4;

const addCounts = (a: WriteCounts, b: WriteCounts): WriteCounts => ({
  created: a.created + b.created,
  updated: a.updated + b.updated,
  unchanged: a.unchanged + b.unchanged,
});

/**
 * Upserts the seller's own offers and their products (code = SKU). An own offer takes price,
 * status and stock status (`in_stock` when it ships now from the marketplace's warehouses, else `lead_time`) from the
 * snapshot and keeps its buy box fields, which only a read of the product's page changes.
 */
export const applyOwnOffers = async (
  clientId: string,
  connector: SyncConnector,
  snapshots: readonly OwnOfferSnapshot[],
  now = new Date().toISOString(),
): Promise<OwnOffersResult> => {
  const imageUrl = storefrontUrl.parse(connector.storefrontUrl);
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

  const products = await applyProducts(clientId, valid, imageUrl, now);
  let offers: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
  let round = valid;
  for (let attempt = 1; round.length > 0 && attempt <= MAX_WRITE_ROUNDS; attempt++) {
    const { counts, conflicts } = await writeOwnSnapshots(clientId, connector, round, imageUrl, now);
    offers = addCounts(offers, counts);
    round = round.filter((snapshot) => conflicts.has(snapshot.offerId));
  }
  return { products, offers, skipped, problems };
};

/**
 * What a look at an own offer's price at `at` (a sync's, or a page's) makes of it: the
 * marketplace is the truth for prices. A look older than the price stored (its `price_at`)
 * changes nothing. One that shows another price than the one the service believes live
 * (product-partition.ts believedOwnPrice), and is newer than that belief, ends the belief (the
 * confirmations before it, and the last decision that took its price for live:
 * endPriceBeliefs), so the offer is decided again, and is recorded as seen now (`priceSeen`),
 * even when the price is the one a sync stored before.
 */
const lookAtOwnPrice = async (
  clientId: string,
  before: StoredOffer,
  states: readonly DecisionState[],
  seen: number,
  at: string,
): Promise<{ readonly price: number; readonly priceSeen: boolean }> => {
  if (before.price_at !== undefined && before.price_at > at) return { price: before.fields.offer_price, priceSeen: false };
  const ofOffer = states.filter((state) => state.offerId === before.fields.offer_id);
  const believed = believedOwnPrice(ofOffer, before);
  if (seen === believed.price || believed.at >= at) return { price: seen, priceSeen: false };
  await endPriceBeliefs(clientId, before.product_code, ofOffer, believed.price, at);
  return { price: seen, priceSeen: true };
};

/** The decision states of the products these stored offers are under, by product: one Query per product. */
const decisionStatesOf = async (clientId: string, offers: readonly StoredOffer[]): Promise<Map<string, DecisionState[]>> => {
  const codes = [...new Set(offers.map((offer) => offer.product_code))];
  const states = await mapLimit(codes, (code) => readDecisionStates(clientId, code));
  return new Map(codes.map((code, index) => [code, states[index] ?? []] as const));
};

/** The own offers of the snapshots, computed from what is stored now and written where they changed. */
const writeOwnSnapshots = async (clientId: string, connector: SyncConnector, valid: readonly OwnSnapshot[], imageUrl: string, now: string) => {
  const stored = await readOffers(
    clientId,
    valid.map((s) => s.offerId),
  );
  // What the service believes of each stored offer's price: the seller API's price is weighed against it.
  const beliefs = await decisionStatesOf(clientId, [...stored.values()]);
  const looks = await mapLimit(valid, async (snapshot) => {
    const before = stored.get(snapshot.offerId);
    return before ? lookAtOwnPrice(clientId, before, beliefs.get(before.product_code) ?? [], snapshot.sellingPrice, now) : undefined;
  });
  const inputs = valid.flatMap((snapshot, index) => {
    const before = stored.get(snapshot.offerId);
    const look = looks[index];
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
    const input: OfferInput = {
      ...base,
      offer_price: look?.price ?? snapshot.sellingPrice,
      offer_status: snapshot.status,
      stock_status: (snapshot.shipsNow ?? snapshot.stockOnHand > 0) ? 'in_stock' : 'lead_time',
      seller_id: connector.sellerId,
      product_code: snapshot.sku,
      connector: connector.uid,
      ...(before && look?.priceSeen ? { basis: { readVersion: before.updated_at, priceSeen: true } } : {}),
    };
    const changed = changedInput(before, input, false, now);
    return changed ? [changed] : [];
  });
  return writeChanged(ownerOf(clientId, connector), valid.length, inputs, now);
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

/** The latest price the marketplace confirmed for any of the product's offers: the read after it is always recorded. */
const lastConfirmedAt = (partition: ProductForRepricing): string | undefined =>
  [...partition.decisions.values()].reduce<string | undefined>(
    (latest, state) => (state.confirmedAt !== undefined && (latest === undefined || state.confirmedAt > latest) ? state.confirmedAt : latest),
    undefined,
  );

const recordMarket = async (
  clientId: string,
  code: string,
  uid: string,
  before: MarketState | undefined,
  seen: Parameters<typeof marketAfterRead>[1],
  now: string,
  confirmedAt?: string,
  premium?: InStockPremium,
): Promise<void> => {
  const next = marketAfterRead(before, seen, now, MARKET_TIMING, confirmedAt);
  // A premium alone needs a market already recorded (a read that saw the buy box always records one first).
  if (next || (premium && before)) await writeMarketState(clientId, code, uid, { market: next, premium });
};

/**
 * A read that saw nothing of the market (an empty, blocked, missing or malformed page, or a
 * connection whose seller is not known): the product's market is unknown until a page shows its
 * buy box again, so its repricers decide nothing. Written only when the state or reason changes.
 */
export const recordMarketUnseen = async (clientId: string, connector: string, code: string, reason: MarketUnknownReason, now = new Date().toISOString()) => {
  const uid = connectorUid.parse(connector);
  await recordMarket(clientId, code, uid, await readMarketState(clientId, code, uid), { state: 'unknown', reason }, now);
};

/**
 * Applies a product's storefront page, when it shows the product's own variant and a rival or
 * nothing unreadable (else the market is unknown and nothing of the page is written:
 * docs/market-sync.md, "Variants"): the buy box fields on every offer of the product on this
 * connector (own ones included), the competitors' offers upserted under ids of the variant, and
 * competitors that left the page marked `not_buyable` (once: an offer away from the page is
 * not written again until it comes back). The product's in-stock premium on the connector is
 * narrowed by what the page shows (domain/in-stock-premium.ts) and recorded with the market
 * view, only when it changed.
 */
export const applyProductMarket = async (
  clientId: string,
  connector: SyncConnector,
  code: string,
  market: ProductMarket,
  now = new Date().toISOString(),
): Promise<ProductMarketResult> => {
  for (let attempt = 1; ; attempt++) {
    const result = await applyPageOnce(clientId, connector, code, market, now, attempt === MAX_WRITE_ROUNDS);
    if (result !== 'conflict') return result;
  }
};

/** One try: 'conflict' when another writer changed one of the product's offers between the read and the write. */
const applyPageOnce = async (
  clientId: string,
  connector: SyncConnector,
  code: string,
  market: ProductMarket,
  now: string,
  lastTry: boolean,
): Promise<ProductMarketResult | 'conflict'> => {
  const lineId = productLineId.safeParse(market.productLineId);
  if (!lineId.success) return { kind: 'malformed', problem: problemOf('productLineId', lineId.error) };
  const uid = connectorUid.parse(connector.uid);
  const partition = await readProductForRepricing(clientId, code);
  if (!partition) return { kind: 'no-product' };
  const marketBefore = partition.markets.get(uid);
  const unknown = async (reason: 'variant_not_shown' | 'rivals_unreadable', skipped = 0): Promise<ProductMarketResult> => {
    await recordMarket(clientId, code, uid, marketBefore, { state: 'unknown', reason }, now);
    return { kind: 'unknown', reason, skipped };
  };
  // A page of several variants without a buy box waits for a choice of variant: reading it again soon shows no more.
  if (!market.buyBoxShown && market.multiVariant !== true) {
    await recordMarket(clientId, code, uid, marketBefore, { state: 'unknown', reason: 'empty_page' }, now);
    return { kind: 'unseen' };
  }
  const shown = pageVariantKey({ ...market, productLineId: lineId.data }, partition.variantId);
  if (shown === undefined || !market.buyBoxShown) return unknown('variant_not_shown');
  const variantKey = productLineId.safeParse(shown);
  if (!variantKey.success) return { kind: 'malformed', problem: problemOf('variantId', variantKey.error) };
  const view = deriveMarketView(market, { ownSellerId: connector.sellerId, priceStep: await priceStepOf(uid) });
  // No rival read beside entries that could not be: not seen alone, so not priced as alone.
  if (rivalsUnreadable(view, market.skipped)) return unknown('rivals_unreadable', view.skipped + market.skipped);
  const pageUrl = storefrontUrl.safeParse(market.url);
  const urlOf = (before: StoredOffer | undefined) => (pageUrl.success ? pageUrl.data : (before?.fields.url ?? storefrontUrl.parse(connector.storefrontUrl)));

  const ofConnector = partition.offers.filter((offer) => offer.connector === uid);
  const ownOnPage = view.offers.find((offer) => offer.own);
  const inputs: OfferInput[] = [];
  const consider = (before: StoredOffer | undefined, input: OfferInput, onPage: boolean) => {
    const changed = changedInput(before, input, onPage, now);
    if (changed) inputs.push(changed);
  };

  for (const before of ofConnector.filter((offer) => offer.scope === 'own')) {
    const buyBox = ownOnPage ?? view.absentOffer(before.fields.offer_price);
    // The page's own price counts only against the one believed live (the seller API's stays otherwise).
    const look = ownOnPage ? await lookAtOwnPrice(clientId, before, [...partition.decisions.values()], ownOnPage.price, now) : undefined;
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
  const ids = competitors.map((offer) => competitorOfferId(uid, variantKey.data, offer.sellerId));
  // Read wherever it is: an offer of this variant that another product holds (two products claiming one variant) is never moved.
  const stored = await readOffers(clientId, ids);
  if ([...stored.values()].some((offer) => offer.product_code !== code)) return unknown('variant_not_shown');
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
    const input = offMarketInput(before, uid, now);
    if (!input) continue;
    left++;
    inputs.push(input);
  }

  const considered = ofConnector.filter((offer) => offer.scope === 'own').length + competitors.length + left;
  const { counts: offers, conflicts } = await writeChanged(ownerOf(clientId, connector), considered, inputs, now);
  // What was written stays; the rest is computed again from the other writer's version (the next read does it after the last try).
  if (conflicts.size > 0 && !lastTry) return 'conflict';
  // After the offers: a repricer woken by this record sees them as the page showed them, and the premium the page narrowed.
  const premiumBefore = premiumOn(partition, uid);
  const premium = observePremium(premiumBefore, view);
  // The first read after a confirmed price or a resume is recorded: the price sender waits for it.
  const confirmedAt = lastConfirmedAt(partition);
  const recordAfter = connector.resumedAt !== undefined && (confirmedAt === undefined || connector.resumedAt > confirmedAt) ? connector.resumedAt : confirmedAt;
  await recordMarket(clientId, code, uid, marketBefore, { state: 'known' }, now, recordAfter, premium === premiumBefore ? undefined : premium);
  return { kind: 'applied', offers, skipped: view.skipped + market.skipped, merged: view.merged, left };
};

/**
 * The marketplace ids of the tenant's own offers, from the offer lookups (one partition per
 * tenant), leaving out the competitor offers of this connector by key range: their ids all
 * start with `<connector uid>:` (market-snapshot.ts competitorOfferId).
 */
const ownOfferIds = async (clientId: string, connectorUid: string): Promise<string[]> => {
  const competitors = part(`${connectorUid}:`);
  const ids: string[] = [];
  // Keys are URI-encoded ASCII, so every competitor key lies between the prefix and the prefix followed by DEL.
  for (const [operator, bound] of [
    ['<', competitors],
    ['>', `${competitors}\x7f`],
  ] as const) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: `pk = :pk AND sk ${operator} :bound`,
          ExpressionAttributeValues: { ':pk': offerLookupPartition(clientId), ':bound': bound },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        const lookup = offerLookup.safeParse(item);
        if (lookup.success && (lookup.data.listedCell === undefined || cellScope(lookup.data.listedCell) === 'own'))
          ids.push(decodeURIComponent(String(item.sk)));
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return ids;
};

/** The own offers of this connector (as stored) whose marketplace ids a list did not show. */
export const ownOffersNotSeen = async (clientId: string, connector: SyncConnector, seen: ReadonlySet<string>): Promise<StoredOffer[]> => {
  const uid = connectorUid.parse(connector.uid);
  const missing = (await ownOfferIds(clientId, uid)).filter((offerId) => !seen.has(offerId));
  if (missing.length === 0) return [];
  return [...(await readOffers(clientId, missing)).values()].filter((offer) => offer.connector === uid && offer.scope === 'own');
};

/** Own offers the marketplace no longer has become not buyable and lose their buy-box slots; one already marked is not written again. */
export const markOwnOffersGone = async (
  clientId: string,
  connector: SyncConnector,
  offers: readonly StoredOffer[],
  now = new Date().toISOString(),
): Promise<WriteCounts> => {
  const uid = connectorUid.parse(connector.uid);
  const inputs = offers.flatMap((before) => offMarketInput(before, uid, now) ?? []);
  // Another writer's change meanwhile means the offer was just seen: it is not marked gone now; the next complete list decides.
  return (await writeChanged(ownerOf(clientId, connector), offers.length, inputs, now)).counts;
};

/**
 * After a complete own-offer list (every page read, the count matched): the own offers of this
 * connector it did not show are gone. Only a complete list may say so of offers it did not list.
 */
export const markGoneOwnOffers = async (
  clientId: string,
  connector: SyncConnector,
  seen: ReadonlySet<string>,
  now = new Date().toISOString(),
): Promise<WriteCounts> => markOwnOffersGone(clientId, connector, await ownOffersNotSeen(clientId, connector, seen), now);
