import { offerKey, productKey, repricerKey } from '../../../lambdas/data/table/keys.js';
import { OFFER_SCHEMA_VERSION, type StoredOffer } from '../../../lambdas/data/offers/list.js';
import { REPRICER_SCHEMA_VERSION, type StoredRepricer } from '../../../lambdas/data/repricers/list.js';
import type { NewRepricer } from '../../../lambdas/data/repricers/write.js';
import type { ConnectorType, ConnectorTypeFields, Offer, OfferFields, Product, ProductFields, Repricer } from '../../../lambdas/domain/records.js';

/** Valid records of the interface, for tests of the data layer and the handlers. */
export const CREATED_AT = '2026-01-02T03:04:05.678Z';

export const feeEstimate = (fulfilment: number, commissionPercentage: number) => ({
  commission: 0,
  fulfilment,
  commission_percentage: commissionPercentage,
});

export const productFields = (overrides: Partial<ProductFields> = {}): ProductFields => ({
  code: 'SKU-1',
  title: 'Kettle',
  description: 'A 1.7 l kettle',
  brand: 'Acme',
  colour: 'white',
  barcode: '6001234567890',
  type: null,
  material: null,
  parent_code: null,
  images: ['https://cdn.example.com/sku-1/1.jpg'],
  main_image: 'https://cdn.example.com/sku-1/main.jpg',
  retail_price: 499.99,
  soh: 10,
  height_cm: 25,
  length_cm: 20,
  width_cm: 15,
  weight_g: 1200,
  fee_estimates: { takealot: { instock: feeEstimate(5, 15), leadtime: feeEstimate(8, 20) } },
  ...overrides,
});

export const product = (overrides: Partial<Product> = {}): Product => ({
  id: 11,
  ...productFields(),
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  ...overrides,
});

export const connectorTypeFields = (overrides: Partial<ConnectorTypeFields> = {}): ConnectorTypeFields => ({
  uid: 'takealot',
  name: 'Takealot',
  logo: 'https://cdn.example.com/takealot.png',
  website: 'https://www.takealot.com',
  ...overrides,
});

export const connectorType = (overrides: Partial<ConnectorType> = {}): ConnectorType => ({
  id: 3,
  ...connectorTypeFields(),
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  ...overrides,
});

export const offerFields = (overrides: Partial<OfferFields> = {}): OfferFields => ({
  offer_id: 'OF-1',
  offer_price: 450,
  offer_status: 'active',
  stock_status: 'in_stock',
  competitiveness: 'winning',
  total_competitors: 5,
  winning: true,
  winning_delivery: false,
  winning_price: 449.99,
  rating_avg: 4.5,
  rating_count: '120',
  seller_id: 'seller-own',
  seller_name: 'Own Shop',
  url: 'https://www.takealot.com/offer/OF-1',
  last_seen_at: CREATED_AT,
  ...overrides,
});

export const offer = (overrides: Partial<Offer> = {}): Offer => ({
  id: 1,
  ...offerFields(),
  product: product(),
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  ...overrides,
});

export const repricerFields = (overrides: Partial<NewRepricer> = {}): NewRepricer => ({
  buybox_approach: 'cheapest',
  repricer_approach: 'fixed',
  enabled: true,
  preferred_price: 100,
  preferred_profit: 20,
  min_price: 76.48,
  min_profit: 0,
  fixed_fulfilment_fee: 5,
  unit_cost: null,
  exclude_seller_ids: [],
  min_competitor_rating: null,
  competitor_stock: 'any',
  max_competitor_leadtime_days: null,
  price_war_guard: null,
  connector_type: connectorType(),
  product: product(),
  ...overrides,
});

/** A stored repricer of client c1. */
export const repricer = (overrides: Partial<Repricer> = {}): Repricer => ({
  id: 7,
  uid: '6f1c2a4e-0b7d-4c1e-9a53-2d8e7f1b4c90',
  ...repricerFields(),
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  ...overrides,
});

/** A canonical offer of client c1 as the offer writer stores it (under its product). */
export const storedOffer = (overrides: Partial<OfferFields> = {}, extra: Partial<Omit<StoredOffer, 'fields'>> = {}): StoredOffer => ({
  entity: 'offer',
  sv: OFFER_SCHEMA_VERSION,
  id: 1,
  product_code: 'SKU-1',
  connector: 'takealot',
  scope: 'own',
  fields: offerFields(overrides),
  created_at: CREATED_AT,
  updated_at: CREATED_AT,
  ...extra,
});

export const offerItem = (offer: StoredOffer, clientId = 'c1') => ({ ...offerKey(clientId, offer.product_code, offer.fields.offer_id), ...offer });

export const productItem = (record: Product = product(), clientId = 'c1') => ({ ...productKey(clientId, record.code), entity: 'product', record });

/** A canonical repricer of client c1 and the version its ETag names. */
export const storedRepricer = (overrides: Partial<Repricer> = {}, version = 1): StoredRepricer => ({
  entity: 'repricer',
  sv: REPRICER_SCHEMA_VERSION,
  version,
  record: repricer(overrides),
});

export const repricerItem = (stored: StoredRepricer = storedRepricer(), clientId = 'c1') => ({ ...repricerKey(clientId, stored.record.id), ...stored });
