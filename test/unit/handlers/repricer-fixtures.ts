import type { Repricer } from '../../../lambdas/shared/domain/records.js';
import { CREATED_AT, connectorType, product } from '../data/fixtures.js';

/** A stored repricer of client c1, as the handlers read it back. */
export const repricer = (overrides: Partial<Repricer> = {}): Repricer => ({
  id: 7,
  uid: '6f1c2a4e-0b7d-4c1e-9a53-2d8e7f1b4c90',
  buybox_approach: 'cheapest',
  repricer_approach: 'fixed',
  enabled: true,
  preferred_price: 100,
  preferred_profit: 20,
  min_price: 76.48,
  min_profit: 0,
  fixed_fulfilment_fee: 5,
  connector_type: connectorType(),
  product: product(),
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  ...overrides,
});

export const REPRICER_KEY = { pk: 'T#c1#R#7', sk: 'REPRICER' };
export const repricerItem = (record: Repricer = repricer(), version = 1) => ({ ...REPRICER_KEY, entity: 'repricer', version, record });
