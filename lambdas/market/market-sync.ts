import {
  marketRecord,
  pageMarketRecord,
  parseOwnSnapshots,
  planOffMarket,
  planOwnOffers,
  planOwnProducts,
  planPage,
  readPage,
  storefrontUrl,
  type BeliefEnd,
  type MarketRecord,
  type OfferWrite,
  type SyncConnector,
  type WriteCounts,
} from '../domain/market-apply.js';
import type { MarketUnknownReason } from '../domain/market-state.js';
import { connectorUid } from '../domain/records.js';
import type { ProductMarket } from '../domain/storefront-page.js';
import type { OwnOfferSnapshot } from '../marketplace/port.js';
import { readMarketState, writeMarketState } from '../data/repricing/market-views.js';
import { ownOffersNotSeen as storedOwnOffersNotSeen, readKnownProducts, readOffers, writeOfferChanges, writeProductPlan } from '../data/market/market-sync.js';
import type { StoredOffer } from '../data/offers/list.js';
import type { OfferOwner } from '../data/offers/write.js';
import { believedOwnPrice, endPriceBeliefs, readDecisionStates, type DecisionState } from '../data/repricing/decision-states.js';
import { premiumOn, readProductForRepricing } from '../data/repricing/inputs.js';
import { priceStepOf } from '../data/connections/connectors.js';
import { mapLimit } from '../data/table/concurrency.js';
import { nowIso } from '../config/clock.js';

export { OFF_MARKET_STATUS, UNKNOWN_SELLER_ID, UNSEEN_COMPETITIVENESS, type SyncConnector, type WriteCounts } from '../domain/market-apply.js';

/**
 * The use cases of a marketplace sync (docs/market-sync.md): each reads what it needs, has the
 * domain plan what to write (domain/market-apply.ts), and has the data layer write the plan
 * (data/market/market-sync.ts). A plan whose offers another writer changed between the read and
 * the write (the own-offer sync and the storefront reader write the same own offers) is read and
 * planned again for those offers, up to MAX_WRITE_ROUNDS times; after that the next sync or read
 * does it.
 */
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

/** How often a write that met another writer's change is planned again before the next sync takes over. */
const MAX_WRITE_ROUNDS = 4;

const ownerOf = (clientId: string, connector: SyncConnector): OfferOwner => ({ clientId, sellerId: connector.sellerId, defaultConnector: connector.uid });

const addCounts = (a: WriteCounts, b: WriteCounts): WriteCounts => ({
  created: a.created + b.created,
  updated: a.updated + b.updated,
  unchanged: a.unchanged + b.unchanged,
});

/** What the service believes of a stored own offer's price, from its decision states (data/repricing/decision-states.ts believedOwnPrice). */
const believedFrom = (states: readonly DecisionState[]) => (offer: StoredOffer) => believedOwnPrice(states, offer);

/** Ends the beliefs a plan's looks contradicted, before its offers are written (their writes wake the evaluator). */
const endBeliefs = async (clientId: string, ends: readonly BeliefEnd[], states: (productCode: string) => readonly DecisionState[], at: string) => {
  await mapLimit(ends, (end) =>
    endPriceBeliefs(
      clientId,
      end.productCode,
      states(end.productCode).filter((state) => state.offerId === end.offerId),
      end.contradicted,
      at,
    ),
  );
};

/** The decision states of the products these stored offers are under, by product: one Query per product. */
const decisionStatesOf = async (clientId: string, offers: readonly StoredOffer[]): Promise<Map<string, DecisionState[]>> => {
  const codes = [...new Set(offers.map((offer) => offer.product_code))];
  const states = await mapLimit(codes, (code) => readDecisionStates(clientId, code));
  return new Map(codes.map((code, index) => [code, states[index] ?? []] as const));
};

/**
 * Upserts the seller's own offers and their products (code = SKU). An own offer takes price,
 * status and stock status from the snapshot and keeps its buy box fields, which only a read of
 * the product's page changes.
 */
export const applyOwnOffers = async (
  clientId: string,
  connector: SyncConnector,
  snapshots: readonly OwnOfferSnapshot[],
  now = nowIso(),
): Promise<OwnOffersResult> => {
  const imageUrl = storefrontUrl.parse(connector.storefrontUrl);
  const { valid, skipped, problems } = parseOwnSnapshots(snapshots);

  const productPlan = planOwnProducts(
    valid,
    await readKnownProducts(
      clientId,
      valid.map((s) => s.sku),
    ),
    imageUrl,
    now,
  );
  await writeProductPlan(clientId, productPlan);
  const products = { created: productPlan.create.length, updated: productPlan.update.length, unchanged: productPlan.unchanged };

  let offers: WriteCounts = { created: 0, updated: 0, unchanged: 0 };
  let round = valid;
  for (let attempt = 1; round.length > 0 && attempt <= MAX_WRITE_ROUNDS; attempt++) {
    const stored = await readOffers(
      clientId,
      round.map((s) => s.offerId),
    );
    // What the service believes of each stored offer's price: the seller API's price is weighed against it.
    const states = await decisionStatesOf(clientId, [...stored.values()]);
    const plan = planOwnOffers({
      snapshots: round,
      stored,
      believed: (offer) => believedFrom(states.get(offer.product_code) ?? [])(offer),
      connector,
      imageUrl,
      now,
    });
    await endBeliefs(clientId, plan.endBeliefs, (code) => states.get(code) ?? [], now);
    const { counts, conflicts } = await writeOfferChanges(ownerOf(clientId, connector), plan.considered, plan.writes, now);
    offers = addCounts(offers, counts);
    round = round.filter((snapshot) => conflicts.has(snapshot.offerId));
  }
  return { products, offers, skipped, problems };
};

const recordMarket = async (clientId: string, code: string, uid: string, record: MarketRecord | undefined): Promise<void> => {
  if (record) await writeMarketState(clientId, code, uid, record);
};

/**
 * A read that saw nothing of the market (an empty, blocked, missing or malformed page, or a
 * connection whose seller is not known): the product's market is unknown until a page shows its
 * buy box again, so its repricers decide nothing. Written only when the state or reason changes.
 */
export const recordMarketUnseen = async (clientId: string, connector: string, code: string, reason: MarketUnknownReason, now = nowIso()) => {
  const uid = connectorUid.parse(connector);
  await recordMarket(clientId, code, uid, marketRecord(await readMarketState(clientId, code, uid), { state: 'unknown', reason }, now));
};

/**
 * Applies a product's storefront page, when it shows the product's own variant and a rival or
 * nothing unreadable (else the market is unknown and nothing of the page is written:
 * docs/market-sync.md, "Variants"): the buy box fields on every offer of the product on this
 * connector, the competitors' offers upserted, competitors that left the page marked off the
 * market, then the market recorded with the in-stock premium the page narrowed, only when it
 * changed.
 */
export const applyProductMarket = async (
  clientId: string,
  connector: SyncConnector,
  code: string,
  market: ProductMarket,
  now = nowIso(),
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
  const uid = connectorUid.parse(connector.uid);
  const partition = await readProductForRepricing(clientId, code);
  const reading = readPage(market, partition && { variantId: partition.variantId, priceStep: await priceStepOf(uid) }, { uid, sellerId: connector.sellerId });
  if (reading.kind === 'malformed' || reading.kind === 'no-product') return reading;
  const marketBefore = partition?.markets.get(uid);
  const unknown = async (reason: 'variant_not_shown' | 'rivals_unreadable', skipped = 0): Promise<ProductMarketResult> => {
    await recordMarket(clientId, code, uid, marketRecord(marketBefore, { state: 'unknown', reason }, now));
    return { kind: 'unknown', reason, skipped };
  };
  if (reading.kind === 'unseen') {
    await recordMarket(clientId, code, uid, marketRecord(marketBefore, { state: 'unknown', reason: 'empty_page' }, now));
    return reading;
  }
  if (reading.kind === 'unknown') return unknown(reading.reason, reading.skipped);
  if (!partition) return { kind: 'no-product' };

  const decisions = [...partition.decisions.values()];
  const plan = planPage({
    code,
    connector: { ...connector, uid },
    market,
    reading,
    offers: partition.offers,
    competitors: await readOffers(clientId, reading.competitorIds),
    believed: believedFrom(decisions),
    now,
  });
  if (plan.kind === 'unknown') return unknown(plan.reason);
  await endBeliefs(clientId, plan.endBeliefs, () => decisions, now);
  const { counts: offers, conflicts } = await writeOfferChanges(ownerOf(clientId, connector), plan.considered, plan.writes, now);
  // What was written stays; the rest is planned again from the other writer's version (the next read does it after the last try).
  if (conflicts.size > 0 && !lastTry) return 'conflict';
  // After the offers: a repricer woken by this record sees them as the page showed them, and the premium the page narrowed.
  const record = pageMarketRecord({
    before: marketBefore,
    premiumBefore: premiumOn(partition, uid),
    view: reading.view,
    decisions,
    resumedAt: connector.resumedAt,
    now,
  });
  await recordMarket(clientId, code, uid, record);
  return { kind: 'applied', offers, skipped: reading.skipped, merged: reading.view.merged, left: plan.left };
};

/** The own offers of this connector (as stored) whose marketplace ids a list did not show. */
export const ownOffersNotSeen = async (clientId: string, connector: SyncConnector, seen: ReadonlySet<string>): Promise<StoredOffer[]> =>
  storedOwnOffersNotSeen(clientId, connectorUid.parse(connector.uid), seen);

/** Own offers the marketplace no longer has become not buyable and lose their buy-box slots; one already marked is not written again. */
export const markOwnOffersGone = async (clientId: string, connector: SyncConnector, offers: readonly StoredOffer[], now = nowIso()): Promise<WriteCounts> => {
  const writes: readonly OfferWrite[] = planOffMarket(offers, connectorUid.parse(connector.uid), now);
  // Another writer's change meanwhile means the offer was just seen: it is not marked gone now; the next complete list decides.
  return (await writeOfferChanges(ownerOf(clientId, connector), offers.length, writes, now)).counts;
};

/**
 * After a complete own-offer list (every page read, the count matched): the own offers of this
 * connector it did not show are gone. Only a complete list may say so of offers it did not list.
 */
export const markGoneOwnOffers = async (clientId: string, connector: SyncConnector, seen: ReadonlySet<string>, now = nowIso()): Promise<WriteCounts> =>
  markOwnOffersGone(clientId, connector, await ownOffersNotSeen(clientId, connector, seen), now);
