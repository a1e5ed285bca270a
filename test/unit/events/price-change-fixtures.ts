import { priceChangePartition } from '../../../lambdas/data/table/keys.js';
import { PRICE_CHANGE_SCHEMA_VERSION } from '../../../lambdas/data/price-changes/list.js';
import type { PriceChange } from '../../../lambdas/domain/records.js';

/** A price change as the forwarder's tests build it: pending, just decided; any field overridden. */
export const PRICE_CHANGE_CREATED_AT = '2026-11-22T10:15:30.001Z';

export const priceChange = (overrides: Partial<PriceChange> = {}): PriceChange => ({
  id: 41,
  uid: '9b0e6c2d-1f4a-4e8b-a3c5-7d2f1e0b9a61',
  repricer_id: 7,
  offer_id: 'OFR-1',
  product_code: 'P-1',
  connector: 'takealot',
  old_price: 50,
  new_price: 48.5,
  reason: 'undercut',
  lowest_competitor_price: 49,
  competitor_offer_id: 'OFR-2',
  status: 'pending',
  status_reason: null,
  sent_price: null,
  sent_at: null,
  applied_at: null,
  explanation: null,
  created_at: PRICE_CHANGE_CREATED_AT,
  updated_at: PRICE_CHANGE_CREATED_AT,
  ...overrides,
});

/** The canonical item, with the sender's own state beside the record as the sender keeps it. */
export const priceChangeItem = (clientId: string, record: PriceChange, senderState: Record<string, unknown> = {}) => ({
  pk: priceChangePartition(clientId, record.product_code),
  sk: `R${record.repricer_id}#${record.id}`,
  entity: 'priceChange',
  sv: PRICE_CHANGE_SCHEMA_VERSION,
  record,
  ...senderState,
});
