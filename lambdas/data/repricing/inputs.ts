import type { EngineContext, EngineOffer } from '../../domain/repricing.js';
import type { Product } from '../../domain/records.js';
import type { MarketState } from '../../domain/market-state.js';
import { DEFAULT_IN_STOCK_PREMIUM, type InStockPremium } from '../../domain/in-stock-premium.js';
import type { WarState } from '../../domain/price-war.js';
import { readPartition } from '../table/partition.js';
import { productPartition } from '../table/keys.js';
import { storedOffer, type StoredOffer } from '../offers/list.js';
import { storedProduct } from '../offers/products.js';
import { warStatesOf } from '../price-changes/price-wars.js';
import { repricerSlot, type RepricerSlot } from '../repricers/slots.js';
import { believedOwnPrice, decisionId, decisionState, type DecisionState } from './decision-states.js';
import { parseMarketState } from './market-views.js';

/**
 * What a repricing decision reads: everything a product's repricers need is in the product's
 * partition (the `product` collection of table/entities.ts), read with one consistent Query: the
 * product, its offers (own and other sellers'), its repricer slots (with each repricer's bounds
 * and competitor filters), the last decision of each repricer for each offer, the market views
 * and the price-war states. The evaluator, the preview, the sender and the syncs share this view.
 */
export interface ProductForRepricing {
  readonly product: Product;
  /** The variant of its product line the product is (market sync), where the marketplace said. */
  readonly variantId?: string;
  readonly offers: StoredOffer[];
  readonly slots: RepricerSlot[];
  readonly decisions: Map<string, DecisionState>;
  /** The market view per connector, where the storefront reader has recorded one. */
  readonly markets: Map<string, MarketState>;
  /** The price-war guard's state per repricer and own offer (`warStateId`), where a guard has kept one. */
  readonly wars: Map<string, WarState>;
  /**
   * The in-stock premium per connector, where a storefront page has narrowed it; absent:
   * DEFAULT_IN_STOCK_PREMIUM (premiumOn).
   */
  readonly premiums: Map<string, InStockPremium>;
}

/** The product's in-stock premium on a connector: as learned, else the stated default. */
export const premiumOn = (product: Pick<ProductForRepricing, 'premiums'>, connector: string): InStockPremium =>
  product.premiums.get(connector) ?? DEFAULT_IN_STOCK_PREMIUM;

export const readProductForRepricing = async (clientId: string, code: string): Promise<ProductForRepricing | undefined> => {
  const items = await readPartition(productPartition(clientId, code), { capacity: true });
  const productItem = items.find((item) => item.entity === 'product');
  if (!productItem) return undefined;
  const stored = items.flatMap((item) => (item.entity === 'productMarket' ? [parseMarketState(item)] : [])).flatMap((m) => (m ? [m] : []));
  const decisions = new Map<string, DecisionState>();
  for (const item of items.filter((i) => i.entity === 'repricerDecision')) {
    const state = decisionState.parse(item);
    decisions.set(decisionId(state.repricerId, state.offerId), state);
  }
  const head = storedProduct.parse(productItem);
  return {
    product: head.record,
    ...(head.variantId === undefined ? {} : { variantId: head.variantId }),
    offers: items.filter((item) => item.entity === 'offer').map((item) => storedOffer.parse(item)),
    slots: items.filter((item) => item.entity === 'repricerSlot').map((item) => repricerSlot.parse(item)),
    decisions,
    markets: new Map(stored.map((m) => [m.connector, m.market] as const)),
    premiums: new Map(stored.flatMap((m) => (m.premium ? [[m.connector, m.premium] as const] : []))),
    wars: warStatesOf(items),
  };
};

/**
 * What the engine knows of the product on a connector beyond its offers: the evaluator, the
 * preview and the sender's check share it. The in-stock premium is the one the storefront reader
 * learned, or the stated default (premiumOn). The rrp (the product's `retail_price`, which the
 * own-offer sync keeps equal to the marketplace's) binds where prices are sent: on a connector
 * with a connection (`connected`, as the sender's always is); the offers of a client's imports
 * alone are priced as stated.
 */
export const engineContextOf = (product: ProductForRepricing | undefined, connector: string, connected = true): EngineContext => {
  if (!product) return {};
  const rrp = product.product.retail_price;
  return { premium: premiumOn(product, connector), ...(connected && rrp > 0 ? { rrp } : {}) };
};

/** The price the marketplace has for an own offer now, as the service believes it (believedOwnPrice). */
export const ownPriceNow = (product: Pick<ProductForRepricing, 'decisions'>, offer: StoredOffer): number =>
  believedOwnPrice(product.decisions.values(), offer).price;

/** The product's offers as the engine reads them (an own offer at its price now): the evaluator, the sender and the preview share this view. */
export const engineOffersOf = (product: ProductForRepricing): EngineOffer[] =>
  product.offers.map((offer) => ({
    offer_id: offer.fields.offer_id,
    offer_price: offer.scope === 'own' ? ownPriceNow(product, offer) : offer.fields.offer_price,
    offer_status: offer.fields.offer_status,
    connector: offer.connector,
    own: offer.scope === 'own',
    seller_id: offer.fields.seller_id,
    rating_avg: offer.fields.rating_avg,
    stock_status: offer.fields.stock_status,
  }));
