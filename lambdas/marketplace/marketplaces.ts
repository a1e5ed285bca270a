import type { Marketplace } from './marketplace.js';
import { takealotMarketplace } from './takealot/marketplace.js';

/**
 * The marketplaces the service can connect to: one entry each, declared in the adapter's folder.
 * A second marketplace is its folder and one line here.
 */
export const MARKETPLACES: readonly Marketplace[] = [takealotMarketplace];

/** The stage's marketplace settings as the stack sets them on the functions: each marketplace's production URLs. */
export const productionEnvironment = (marketplaces: readonly Marketplace[] = MARKETPLACES): Record<string, string> =>
  Object.fromEntries(
    marketplaces.flatMap((marketplace) => [
      [marketplace.env.sellerApiUrl, marketplace.productionUrls.sellerApiUrl],
      [marketplace.env.storefrontUrl, marketplace.productionUrls.storefrontUrl],
    ]),
  );
