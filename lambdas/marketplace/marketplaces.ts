import type { Marketplace, MarketplaceUrls } from './marketplace.js';
import { takealotMarketplace } from './takealot/marketplace.js';

/**
 * The marketplaces the service can connect to: one entry each, declared in the adapter's folder.
 * A second marketplace is its folder and one line here.
 */
export const MARKETPLACES: readonly Marketplace[] = [takealotMarketplace];

/** Each marketplace's production URLs as the production stage's functions get them. */
export const productionEnvironment = (marketplaces: readonly Marketplace[] = MARKETPLACES): Record<string, string> =>
  Object.fromEntries(
    marketplaces.flatMap((marketplace) => [
      [marketplace.env.sellerApiUrl, marketplace.productionUrls.sellerApiUrl],
      [marketplace.env.storefrontUrl, marketplace.productionUrls.storefrontUrl],
    ]),
  );

/** The deploy's context keys for a marketplace's URLs on a stage: `<uid>SellerApiUrl` and `<uid>StorefrontUrl`. */
export const marketplaceContextKeys = (marketplace: Marketplace): { readonly [K in keyof MarketplaceUrls]: string } => ({
  sellerApiUrl: `${marketplace.uid}SellerApiUrl`,
  storefrontUrl: `${marketplace.uid}StorefrontUrl`,
});

const httpsUrl = (key: string, value: unknown): string => {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:') throw new Error(`Context "${key}" must be an https:// URL, got ${JSON.stringify(value)}`);
  return String(value);
};

/**
 * The stage's marketplace settings as the stack sets them on the functions. A marketplace's URLs
 * come from the deploy's context when both are given; otherwise only the production stage gets its
 * production URLs, and any other stage none: a test stage must never reach the live marketplace
 * by default (its connections then answer 503 until the operator points it somewhere).
 */
export const stageMarketplaceEnvironment = (
  production: boolean,
  context: (key: string) => unknown,
  marketplaces: readonly Marketplace[] = MARKETPLACES,
): Record<string, string> =>
  Object.fromEntries(
    marketplaces.flatMap((marketplace) => {
      const keys = marketplaceContextKeys(marketplace);
      const given = { sellerApiUrl: context(keys.sellerApiUrl), storefrontUrl: context(keys.storefrontUrl) };
      let urls: MarketplaceUrls | undefined;
      if (given.sellerApiUrl !== undefined || given.storefrontUrl !== undefined) {
        if (given.sellerApiUrl === undefined || given.storefrontUrl === undefined)
          throw new Error(`Give both "${keys.sellerApiUrl}" and "${keys.storefrontUrl}" for ${marketplace.uid}, or neither`);
        urls = { sellerApiUrl: httpsUrl(keys.sellerApiUrl, given.sellerApiUrl), storefrontUrl: httpsUrl(keys.storefrontUrl, given.storefrontUrl) };
      } else if (production) urls = marketplace.productionUrls;
      return urls === undefined
        ? []
        : [
            [marketplace.env.sellerApiUrl, urls.sellerApiUrl],
            [marketplace.env.storefrontUrl, urls.storefrontUrl],
          ];
    }),
  );
