import type { Gate } from '../../../../lambdas/functions/send-prices/gate.js';
import type { Planned } from '../../../../lambdas/functions/send-prices/plan-change.js';
import type { StoredSendable } from '../../../../lambdas/data/price-changes/status.js';
import { DEFAULT_SAFETY, type Connection } from '../../../../lambdas/domain/connections.js';
import type { PriceChange } from '../../../../lambdas/domain/records.js';
import type { MarketplacePort } from '../../../../lambdas/marketplace/port.js';
import { takealotMarketplace } from '../../../../lambdas/marketplace/takealot/marketplace.js';
import type { StoredOffer } from '../../../../lambdas/data/offers/list.js';
import type { RepricerSlot } from '../../../../lambdas/data/repricers/slots.js';

/** A pending price change, a connection and what the sender builds from them, each field overridable. */
export const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

export const sendable = (overrides: Partial<StoredSendable> = {}, record: Partial<PriceChange> = {}): StoredSendable => ({
  ref: { productCode: record.product_code ?? 'P-1', sk: 'PC#1#O-1#00000001' },
  stored: {
    entity: 'priceChange',
    sv: 2,
    record: {
      id: 1,
      uid: '9b0e6c2d-1f4a-4e8b-a3c5-7d2f1e0b9a61',
      repricer_id: 1,
      offer_id: 'O-1',
      product_code: 'P-1',
      connector: 'takealot',
      old_price: 100,
      new_price: 90,
      reason: 'undercut',
      lowest_competitor_price: 91,
      competitor_offer_id: 'C-1',
      status: 'pending',
      status_reason: null,
      sent_price: null,
      sent_at: null,
      applied_at: null,
      explanation: null,
      created_at: '2026-11-25T11:59:00.000Z',
      updated_at: '2026-11-25T11:59:00.000Z',
      ...record,
    },
  },
  ...overrides,
});

export const connection = (overrides: Partial<Connection> = {}): Connection => ({
  connector: 'takealot',
  seller_id: '1000001',
  seller_id_source: 'client',
  entries_skipped: 0,
  uid: '0b6c3f0e-8d7a-4c1b-9e2f-3a4b5c6d7e8f',
  key_last4: 'ZZZZ',
  webhook_secret_set: false,
  mode: 'live',
  status: 'connected',
  safety: DEFAULT_SAFETY,
  last_sync_at: null,
  last_error: null,
  sync_requested_at: null,
  offers_synced: 0,
  prices_sent: 0,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
  ...overrides,
});

export const open = (record: Connection, port: Partial<MarketplacePort> = {}): Extract<Gate, { kind: 'open' }> => ({
  kind: 'open',
  stored: { entity: 'connection', record, sealedKey: { v: 1 } as never },
  port: port as MarketplacePort,
  marketplace: takealotMarketplace,
  apiKey: 'k',
});

/** A planned push of `price` for the change of `record`, from the current price 100. */
export const planned = (price: number, record: Partial<PriceChange> = {}): Planned => ({
  kind: 'push',
  change: sendable({}, record),
  price,
  current: 100,
  rivalPrices: [price + 1],
});

/** A stored offer of product P-1 on takealot: the own one (seller `me`) or a rival's (`s1`). */
export const offer = (offerId: string, price: number, scope: 'own' | 'other'): StoredOffer => ({
  entity: 'offer',
  sv: 1 as StoredOffer['sv'],
  id: offerId === 'O-1' ? 1 : 2,
  product_code: 'P-1',
  connector: 'takealot',
  scope,
  fields: {
    offer_id: offerId,
    offer_price: price,
    offer_status: 'buyable',
    stock_status: 'in_stock',
    competitiveness: 'high',
    total_competitors: 1,
    winning: false,
    winning_delivery: false,
    winning_price: 0,
    rating_avg: 4.5,
    rating_count: '10',
    seller_id: scope === 'own' ? 'me' : 's1',
    seller_name: '',
    url: 'https://storefront.example/p',
    last_seen_at: null,
  },
  created_at: iso(NOW - 3_600_000),
  updated_at: iso(NOW - 3_600_000),
});
/** An enabled `cheapest` repricer between 50 and 200. */
export const slot: RepricerSlot = {
  repricerId: 1,
  enabled: true,
  connector: 'takealot',
  min_price: 50,
  preferred_price: 200,
  buybox_approach: 'cheapest',
  repricer_approach: 'fixed',
  exclude_seller_ids: [],
  min_competitor_rating: 0,
  competitor_stock: 'any',
  max_competitor_leadtime_days: null,
  price_war_guard: null,
};
