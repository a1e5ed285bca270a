import type { PasswordRecord } from '../../lambdas/auth/password.js';
import type { ImportRecord } from '../../lambdas/domain/import-records.js';

/** Builders for import records: valid by default, each field overridable. */
export const connectorRecord = (uid: string, overrides: Record<string, unknown> = {}): ImportRecord => ({
  type: 'connector_type',
  data: { uid, name: uid.toUpperCase(), logo: `https://logos.example/${uid}.png`, website: `https://${uid}.example`, ...overrides },
});

export const fees = (fulfilment: number, commission_percentage: number, leadtimeFulfilment = fulfilment) => ({
  instock: { commission: 0, fulfilment, commission_percentage },
  leadtime: { commission: 0, fulfilment: leadtimeFulfilment, commission_percentage },
});

export const productRecord = (code: string, overrides: Record<string, unknown> = {}): ImportRecord => ({
  type: 'product',
  data: {
    code,
    title: `Product ${code}`,
    description: 'Line one\nLine two',
    brand: 'Acme',
    colour: 'red',
    barcode: '5012345678900',
    type: null,
    material: null,
    parent_code: null,
    images: null,
    main_image: `https://images.example/${code}.jpg`,
    retail_price: 19.99,
    soh: 5,
    height_cm: 10,
    length_cm: 20,
    width_cm: 5,
    weight_g: 250,
    fee_estimates: { amazon: fees(2.5, 15) },
    ...overrides,
  },
});

export const offerRecord = (offerId: string, productCode: string, overrides: Record<string, unknown> = {}): ImportRecord => ({
  type: 'offer',
  data: {
    offer_id: offerId,
    product_code: productCode,
    offer_price: 12.34,
    offer_status: 'buyable',
    stock_status: 'in_stock',
    competitiveness: 'high',
    total_competitors: 3,
    winning: false,
    winning_delivery: false,
    winning_price: 11.99,
    rating_avg: 4.5,
    rating_count: '12',
    seller_id: 'seller-a',
    seller_name: 'Seller A',
    url: `https://market.example/offers/${offerId}`,
    last_seen_at: null,
    ...overrides,
  },
});

/** The stored item of client alice, enabled, with the given password hash. */
export const clientItem = (password: PasswordRecord, extra: Record<string, unknown> = {}) => ({
  pk: 'CLIENT#alice',
  sk: 'CLIENT',
  entity: 'client',
  username: 'alice',
  clientId: 'c0ffee00c0ffee00',
  sellerId: 'seller-alice',
  defaultConnector: 'amazon',
  enabled: true,
  password,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});
