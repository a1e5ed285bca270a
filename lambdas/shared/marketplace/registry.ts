import { MARKET_SYNC } from '../config/market-sync.js';
import type { MarketplacePort } from './port.js';
import { createTakealotAdapter } from './takealot/adapter.js';
import { TAKEALOT_CONNECTOR_UID } from './takealot/connector.js';

/**
 * Which adapter serves a connector type, and the stage's marketplace base URLs: the one place
 * that reads them from the environment. They are operator settings of the stage (set on the
 * functions by the stack), never a client's input.
 *
 * A connector type is Takealot when its uid is `takealot`. The uid is the connector type's
 * stable, operator-chosen name (the reference-data import sets it, repricers and connections
 * name it in their paths), so it already says which marketplace a connector is; a separate
 * adapter setting on the type would be a second name for the same fact that could disagree.
 */
export { TAKEALOT_CONNECTOR_UID } from './takealot/connector.js';
export const TAKEALOT_SELLER_API_URL_ENV = 'TAKEALOT_SELLER_API_URL';
export const TAKEALOT_STOREFRONT_URL_ENV = 'TAKEALOT_STOREFRONT_URL';
/** Takealot's production hosts (spec/takealot.md): what the stack sets unless told otherwise. */
export const TAKEALOT_PRODUCTION_URLS = { sellerApiUrl: 'https://marketplace-api.takealot.com/v1', storefrontUrl: 'https://api.takealot.com' } as const;

export type MarketplaceLookup =
  | {
      readonly kind: 'adapter';
      readonly port: MarketplacePort;
      /** The stage's storefront base URL: a synced offer's `url` until its page names one, and the host reads are paced by. */
      readonly storefrontUrl: string;
    }
  /** The connector has no adapter: it cannot be connected. */
  | { readonly kind: 'unsupported' }
  /** It has one, but this stage has not been given its URLs. */
  | { readonly kind: 'unconfigured' };

const cache = new Map<string, MarketplacePort>();

const configured = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

export const marketplaceFor = (connectorUid: string, env: Readonly<Record<string, string | undefined>> = process.env): MarketplaceLookup => {
  if (connectorUid !== TAKEALOT_CONNECTOR_UID) return { kind: 'unsupported' };
  const sellerApiUrl = configured(env[TAKEALOT_SELLER_API_URL_ENV]);
  const storefrontUrl = configured(env[TAKEALOT_STOREFRONT_URL_ENV]);
  if (sellerApiUrl === undefined || storefrontUrl === undefined) return { kind: 'unconfigured' };
  // Keyed by the URLs: tests point the same process at one simulator after another.
  const cacheKey = `${sellerApiUrl} ${storefrontUrl}`;
  let port = cache.get(cacheKey);
  if (port === undefined) {
    // The largest page the seller API gives: a full sync takes the fewest requests.
    port = createTakealotAdapter({ sellerApiUrl, storefrontUrl, pageSize: MARKET_SYNC.ownOffersPageSize });
    cache.set(cacheKey, port);
  }
  return { kind: 'adapter', port, storefrontUrl };
};
