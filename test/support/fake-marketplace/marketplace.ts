import type { Marketplace, MarketplaceUrls } from '../../../lambdas/marketplace/marketplace.js';
import type { MarketplacePort, PriceUpdate } from '../../../lambdas/marketplace/port.js';

/**
 * A second marketplace as an adapter's folder would declare it (its entry and its port), to show
 * that one plugs in by one entry in the table (lambdas/marketplace/marketplaces.ts). Its
 * port keeps what it was asked in memory; it signs nothing, so no event of it verifies.
 */
export const fakeMarketplacePort = (urls: MarketplaceUrls) => {
  const batches: PriceUpdate[][] = [];
  const port: MarketplacePort = {
    checkKey: async () => 'accepted',
    listOwnOffers: async () => ({ offers: [], skipped: 0 }),
    readOwnOffer: async () => undefined,
    readProductMarket: async (productLineId) => ({ productLineId, offers: [], buyBoxShown: false, skipped: 0 }),
    sendPrices: async (_apiKey, updates) => {
      batches.push([...updates]);
      return { batchId: `fake-${batches.length}` };
    },
    readBatch: async (_apiKey, batchId) => ({ batchId, state: 'succeeded', results: [] }),
    verifyEvent: () => undefined,
  };
  return { port, urls, batches };
};

/** Each port the registry made of it, with what it was asked. */
export const fakePortsMade: ReturnType<typeof fakeMarketplacePort>[] = [];

export const fakeMarketplace: Marketplace = {
  uid: 'fakemart',
  env: { sellerApiUrl: 'FAKEMART_SELLER_API_URL', storefrontUrl: 'FAKEMART_STOREFRONT_URL' },
  productionUrls: { sellerApiUrl: 'https://seller.fakemart.example/api', storefrontUrl: 'https://www.fakemart.example' },
  maxBatchUpdates: 2,
  signatureHeader: 'x-fakemart-signature',
  createPort: (urls) => {
    const made = fakeMarketplacePort(urls);
    fakePortsMade.push(made);
    return made.port;
  },
};
