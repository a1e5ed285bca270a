import { MARKET_SYNC } from '../../config/market-sync.js';
import type { Marketplace } from '../marketplace.js';
import { createTakealotAdapter, MAX_BATCH_UPDATES } from './adapter.js';
import { TAKEALOT_CONNECTOR_UID } from './connector.js';
import { TAKEALOT_SIGNATURE_HEADER } from './events.js';

/** Takealot as the service knows it (docs/takealot.md): its entry in marketplaces.ts. */
export const takealotMarketplace: Marketplace = {
  uid: TAKEALOT_CONNECTOR_UID,
  env: { sellerApiUrl: 'TAKEALOT_SELLER_API_URL', storefrontUrl: 'TAKEALOT_STOREFRONT_URL' },
  productionUrls: { sellerApiUrl: 'https://marketplace-api.takealot.com/v1', storefrontUrl: 'https://api.takealot.com' },
  maxBatchUpdates: MAX_BATCH_UPDATES,
  signatureHeader: TAKEALOT_SIGNATURE_HEADER,
  // The largest page the seller API gives: a full sync takes the fewest requests.
  createPort: (urls) => createTakealotAdapter({ ...urls, pageSize: MARKET_SYNC.ownOffersPageSize }),
};
