import type { Marketplace } from './marketplace.js';
import { MARKETPLACES } from './marketplaces.js';
import type { MarketplacePort } from './port.js';
import { takealotMarketplace } from './takealot/marketplace.js';

/**
 * Which marketplace serves a connector type (marketplaces.ts), and the stage's base URLs for it:
 * the one place that reads them from the environment. They are operator settings of the stage
 * (set on the functions by the stack), never a client's input.
 *
 * A connector type is Takealot when its uid is `takealot`. The uid is the connector type's
 * stable, operator-chosen name (the reference-data import sets it, repricers and connections
 * name it in their paths), so it already says which marketplace a connector is; a separate
 * adapter setting on the type would be a second name for the same fact that could disagree.
 */
export { TAKEALOT_CONNECTOR_UID } from './takealot/connector.js';
/** The simulated marketplace's settings (the local runner and the benchmarks point them at the simulator). */
export const TAKEALOT_SELLER_API_URL_ENV = takealotMarketplace.env.sellerApiUrl;
export const TAKEALOT_STOREFRONT_URL_ENV = takealotMarketplace.env.storefrontUrl;

export type MarketplaceLookup =
  | {
      readonly kind: 'adapter';
      readonly port: MarketplacePort;
      /** Its entry in the marketplaces' table: batch limit, signature header. */
      readonly marketplace: Marketplace;
      /** The stage's storefront base URL: a synced offer's `url` until its page names one, and the host reads are paced by. */
      readonly storefrontUrl: string;
    }
  /** The connector has no adapter: it cannot be connected. */
  | { readonly kind: 'unsupported' }
  /** It has one, but this stage has not been given its URLs. */
  | { readonly kind: 'unconfigured' };

export type MarketplaceFor = (connectorUid: string, env?: Readonly<Record<string, string | undefined>>) => MarketplaceLookup;

const configured = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

/** The lookup over a table of marketplaces (`MARKETPLACES` for the service; a test may add its own). */
export const marketplaceRegistry = (marketplaces: readonly Marketplace[]): MarketplaceFor => {
  const byUid = new Map(marketplaces.map((marketplace) => [marketplace.uid, marketplace]));
  const ports = new Map<string, MarketplacePort>();
  return (connectorUid, env = process.env) => {
    const marketplace = byUid.get(connectorUid);
    if (!marketplace) return { kind: 'unsupported' };
    const sellerApiUrl = configured(env[marketplace.env.sellerApiUrl]);
    const storefrontUrl = configured(env[marketplace.env.storefrontUrl]);
    if (sellerApiUrl === undefined || storefrontUrl === undefined) return { kind: 'unconfigured' };
    // Keyed by the URLs: tests point the same process at one simulator after another.
    const cacheKey = `${connectorUid} ${sellerApiUrl} ${storefrontUrl}`;
    let port = ports.get(cacheKey);
    if (port === undefined) {
      port = marketplace.createPort({ sellerApiUrl, storefrontUrl });
      ports.set(cacheKey, port);
    }
    return { kind: 'adapter', port, marketplace, storefrontUrl };
  };
};

export const marketplaceFor: MarketplaceFor = marketplaceRegistry(MARKETPLACES);
