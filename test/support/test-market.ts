import { TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/marketplace/registry.js';
import { installedClock } from '../../lambdas/config/clock.js';
import { createMarketSimulator, type MarketOptionsInput, type MarketSimulator } from '../../tools/market/index.js';

/**
 * A marketplace simulator on 127.0.0.1 for one test file, and the stage settings pointed at it
 * (the registry reads them per call, as the stack's functions read theirs): a free port, bots
 * that move only when the test says so, and the service's clock (the test API's, once it runs:
 * test/support/local-api.ts) unless the test gives another, so both sides read one time.
 */
export const startTestMarket = async (options: MarketOptionsInput = {}): Promise<MarketSimulator> => {
  const market = await createMarketSimulator({ port: 0, tickIntervalMs: 0, clock: installedClock, ...options });
  process.env[TAKEALOT_SELLER_API_URL_ENV] = market.sellerApiUrl;
  process.env[TAKEALOT_STOREFRONT_URL_ENV] = market.storefrontUrl;
  return market;
};

/** Stops it (when it started) and forgets the settings. */
export const stopTestMarket = async (market: MarketSimulator | undefined): Promise<void> => {
  await market?.stop();
  delete process.env[TAKEALOT_SELLER_API_URL_ENV];
  delete process.env[TAKEALOT_STOREFRONT_URL_ENV];
};
