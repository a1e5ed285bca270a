import { planChange, ProductReads } from '../../../lambdas/send-prices/plan.js';
import type { Gate } from '../../../lambdas/send-prices/gate.js';
import type { StoredSendable } from '../../../lambdas/shared/data/price-change-status.js';
import { DEFAULT_SAFETY, type Connection } from '../../../lambdas/shared/domain/connections.js';
import type { PriceChange } from '../../../lambdas/shared/domain/records.js';
import type { MarketplacePort } from '../../../lambdas/shared/marketplace/port.js';

/**
 * The sender's first decisions about a pending change, made before anything is read: the kill
 * switch and the connection's state come first, so a change queued before `suggest` was set
 * or the connection deleted is never pushed.
 */
const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const change = (overrides: Partial<StoredSendable> = {}, record: Partial<PriceChange> = {}): StoredSendable => ({
  ref: { productCode: 'P-1', sk: 'PC#1#O-1#00000001' },
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
      created_at: '2026-11-25T11:59:00.000Z',
      updated_at: '2026-11-25T11:59:00.000Z',
      ...record,
    },
  },
  ...overrides,
});
const connection = (overrides: Partial<Connection> = {}): Connection => ({
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
const open = (record: Connection): Gate => ({
  kind: 'open',
  stored: { entity: 'connection', record, sealedKey: { v: 1 } as never },
  port: {} as MarketplacePort,
  apiKey: 'k',
});
const plan = (sendable: StoredSendable, gate: Gate) => planChange('c1', sendable, gate, NOW, new ProductReads('c1'));

describe('planning a pending change', () => {
  it('fails it once the connection is deleted', async () => {
    expect(await plan(change(), { kind: 'gone' })).toMatchObject({ kind: 'move', to: 'failed' });
  });

  it('turns a decision back into a suggestion when the connection is in suggest mode (the kill switch)', async () => {
    const result = await plan(change(), open(connection({ mode: 'suggest' })));
    expect(result).toMatchObject({ kind: 'move', to: 'suggested' });
  });

  it('leaves it pending while the connection is paused, unauthorized or held', async () => {
    for (const status of ['paused', 'unauthorized'] as const) {
      const { stored } = open(connection({ status })) as Extract<Gate, { kind: 'open' }>;
      expect(await plan(change(), { kind: 'closed', stored, why: status })).toMatchObject({ kind: 'wait' });
    }
  });

  it('waits on a push still in flight, and doubts it once it is old', async () => {
    const inFlight = change({ pushToken: 't', pushStartedAt: new Date(NOW - 10_000).toISOString() });
    expect(await plan(inFlight, open(connection()))).toMatchObject({ kind: 'wait' });
    const stranded = change({ pushToken: 't', pushStartedAt: new Date(NOW - 10 * 60_000).toISOString() });
    expect(await plan(stranded, open(connection()))).toMatchObject({ kind: 'doubt' });
  });

  it('does nothing with a change that is no longer pending', async () => {
    expect(await plan(change({}, { status: 'sent' }), open(connection()))).toMatchObject({ kind: 'wait' });
  });
});
