import type { MarketplacePort } from './port.js';

/** A marketplace's two base URLs: its seller API and its storefront. */
export interface MarketplaceUrls {
  readonly sellerApiUrl: string;
  readonly storefrontUrl: string;
}

/**
 * What the rest of the service needs to know of a marketplace, declared by its adapter in its own
 * folder (`takealot/marketplace.ts`) and listed once in marketplaces.ts: the stack, the local
 * runner, the registry, the events route and the sender read it from there.
 */
export interface Marketplace {
  /** The connector type's uid it serves (registry.ts says why the uid names the marketplace). */
  readonly uid: string;
  /** The environment variables that carry the stage's base URLs (operator settings). */
  readonly env: { readonly [K in keyof MarketplaceUrls]: string };
  /** What the stack sets them to on the production stage unless told otherwise (marketplaces.ts). */
  readonly productionUrls: MarketplaceUrls;
  /** Price updates per push: the adapter's bound for one batch request. */
  readonly maxBatchUpdates: number;
  /** The header its webhooks carry their signature in (a refusal is logged `unsigned` without it). */
  readonly signatureHeader: string;
  /** The adapter for the stage's URLs. */
  createPort(urls: MarketplaceUrls): MarketplacePort;
}
