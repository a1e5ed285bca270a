import { DEFAULT_SAFETY, type Connection } from '../../lambdas/domain/connections.js';
import type { Webhook } from '../../lambdas/domain/webhooks.js';
import type { z } from 'zod';
import { createRepricerBody, type CreateRepricerBody } from '../../lambdas/domain/create-repricer.js';
import { computePricing } from '../../lambdas/domain/pricing.js';
import { previewRepricer, type RepricerPreview } from '../../lambdas/domain/repricer-preview.js';
import { repricerStatsOf, type RepricerStats } from '../../lambdas/domain/repricer-stats.js';
import type { EngineOffer } from '../../lambdas/domain/repricing.js';
import type { ImportJob } from '../../lambdas/domain/import-jobs.js';
import type { ConnectorType, Offer, OffersPage, PriceChange, Product, Repricer } from '../../lambdas/domain/records.js';
import type { ProductDetail } from '../../lambdas/domain/product-detail.js';
import { conflict, unprocessable, validationFailed } from '../../lambdas/http/errors.js';
import { repricerNotFound } from '../../lambdas/http/not-found.js';
import { preconditionFailed } from '../../lambdas/http/preconditions.js';
import { STANDARD_PROBLEMS, type Problem } from '../../lambdas/http/problem.js';
import { toFieldErrors } from '../../lambdas/http/validation.js';

/**
 * One realistic example per body. The repricer is the worked example of docs/api.md, "Computed
 * fields", priced by the service's own pricing code, and every problem is built by the code
 * that builds it at run time, so an example cannot show what the service would not send.
 */
const CREATED = '2026-01-12T08:30:00.000Z';
const UPDATED = '2026-01-14T16:05:12.345Z';

export const connectorTypeExample: ConnectorType = {
  id: 1,
  uid: 'amazon',
  name: 'Amazon',
  logo: 'https://cdn.repricer.example/logos/amazon.svg',
  website: 'https://www.amazon.com',
  created_at: CREATED,
  updated_at: CREATED,
};

export const productExample: Product = {
  id: 12,
  code: 'DEMO-001',
  title: 'Classic Kettle 1.7 l',
  description: 'Stainless steel kettle.\nBoils 1.7 litres in under four minutes.',
  brand: 'Northwind',
  colour: 'black',
  barcode: '5012345678900',
  type: 'Kitchen',
  material: 'Stainless steel',
  parent_code: null,
  images: ['https://cdn.repricer.example/products/demo-001/side.jpg'],
  main_image: 'https://cdn.repricer.example/products/demo-001/main.jpg',
  retail_price: 119.99,
  soh: 42,
  height_cm: 24.5,
  length_cm: 22,
  width_cm: 16,
  weight_g: 1150,
  fee_estimates: {
    amazon: {
      instock: { commission: 15, fulfilment: 5, commission_percentage: 15 },
      leadtime: { commission: 15, fulfilment: 6.5, commission_percentage: 15 },
    },
  },
  created_at: CREATED,
  updated_at: UPDATED,
};

/** `GET /v1/products/{code}`: the product, its premium learned on one connector. */
export const productDetailExample: ProductDetail = {
  ...productExample,
  in_stock_premium: { takealot: { low_percent: 4.76, high_percent: 5.67, observations: 3 } },
};

const EXAMPLE_PREFERRED_PRICE = 100;
export const createRepricerExample: CreateRepricerBody = createRepricerBody.parse({
  product_code: productExample.code,
  preferred_price: EXAMPLE_PREFERRED_PRICE,
  preferred_profit: 20,
  buybox_approach: 'cheapest',
  repricer_approach: 'fixed',
  enabled: true,
  exclude_seller_ids: ['29814'],
  min_competitor_rating: 3.5,
});

/** The example product priced on its connector by the service's own pricing code. */
const priced = (preferences: { preferredPrice: number; preferredProfit: number; minProfit: number }) =>
  computePricing({ ...preferences, soh: productExample.soh, feeEstimates: productExample.fee_estimates, connectorUid: connectorTypeExample.uid });

const pricedOrThrow = (preferences: Parameters<typeof priced>[0]) => {
  const pricing = priced(preferences);
  if (!pricing.ok) throw new Error(`The repricer example cannot be priced: ${pricing.reason}`);
  return pricing.value;
};

const createdPricing = pricedOrThrow({
  preferredPrice: EXAMPLE_PREFERRED_PRICE,
  preferredProfit: createRepricerExample.preferred_profit,
  minProfit: createRepricerExample.min_profit,
});

export const repricerExample: Repricer = {
  id: 7,
  uid: '3f2c9a4e-8b1d-4c6f-9e2a-5d7b1c0a8f34',
  buybox_approach: createRepricerExample.buybox_approach,
  repricer_approach: createRepricerExample.repricer_approach,
  enabled: createRepricerExample.enabled,
  preferred_price: EXAMPLE_PREFERRED_PRICE,
  preferred_profit: createRepricerExample.preferred_profit,
  min_price: createdPricing.minPrice,
  min_profit: createdPricing.minProfit,
  fixed_fulfilment_fee: createdPricing.fixedFulfilmentFee,
  unit_cost: null,
  exclude_seller_ids: createRepricerExample.exclude_seller_ids,
  min_competitor_rating: createRepricerExample.min_competitor_rating,
  competitor_stock: createRepricerExample.competitor_stock,
  max_competitor_leadtime_days: createRepricerExample.max_competitor_leadtime_days,
  price_war_guard: createRepricerExample.price_war_guard,
  connector_type: connectorTypeExample,
  product: productExample,
  created_at: UPDATED,
  updated_at: UPDATED,
};

/** A PATCH that turns the example repricer off and asks for a floor profit. */
export const updateRepricerExample = { enabled: false, min_profit: 5 };

const updatedPricing = pricedOrThrow({
  preferredPrice: repricerExample.preferred_price,
  preferredProfit: repricerExample.preferred_profit,
  minProfit: updateRepricerExample.min_profit,
});

export const updatedRepricerExample: Repricer = {
  ...repricerExample,
  enabled: updateRepricerExample.enabled,
  min_price: updatedPricing.minPrice,
  min_profit: updatedPricing.minProfit,
  updated_at: '2026-01-15T09:12:44.018Z',
};

/** The example repricer's product as the engine sees it: its own offer and three competitors, two of them filtered out. */
const previewOffers: EngineOffer[] = [
  {
    offer_id: 'AMZ-B0C7K2XQ9D-1',
    offer_price: 89.99,
    offer_status: 'buyable',
    connector: 'amazon',
    own: true,
    seller_id: '10001',
    rating_avg: 4.8,
    stock_status: 'in_stock',
  },
  {
    offer_id: 'AMZ-B0C7K2XQ9D-4',
    offer_price: 79,
    offer_status: 'buyable',
    connector: 'amazon',
    own: false,
    seller_id: '29814',
    rating_avg: 4.9,
    stock_status: 'in_stock',
  },
  {
    offer_id: 'AMZ-B0C7K2XQ9D-7',
    offer_price: 82,
    offer_status: 'buyable',
    connector: 'amazon',
    own: false,
    seller_id: '51234',
    rating_avg: 3.1,
    stock_status: 'in_stock',
  },
  {
    offer_id: 'AMZ-B0C7K2XQ9D-9',
    offer_price: 86.5,
    offer_status: 'buyable',
    connector: 'amazon',
    own: false,
    seller_id: '40077',
    rating_avg: 4.6,
    stock_status: 'lead_time',
  },
];

/** `GET /v1/repricers/{id}/preview` of the example repricer, worked out by the engine itself. */
export const repricerPreviewExample: RepricerPreview = previewRepricer(
  { ...repricerExample, connector: repricerExample.connector_type.uid },
  previewOffers,
  1,
  () => undefined,
);

/** A day of a repricer whose own offer held Best Price until a rival undercut its floor at 18:00. */
export const repricerStatsExample: RepricerStats = repricerStatsOf({
  repricerId: repricerExample.id,
  minPrice: repricerExample.min_price,
  window: { from: Date.parse('2026-01-14T09:00:00.000Z'), to: Date.parse('2026-01-15T09:00:00.000Z') },
  timelines: [
    {
      offerId: 'AMZ-B0C7K2XQ9D-1',
      before: { at: Date.parse('2026-01-14T06:00:00.000Z'), present: true, winning: true, winningDelivery: true, price: repricerExample.min_price + 10 },
      within: [
        { at: Date.parse('2026-01-14T18:00:00.000Z'), present: true, winning: false, winningDelivery: true, price: repricerExample.min_price + 10 },
        { at: Date.parse('2026-01-14T18:05:00.000Z'), present: true, winning: false, winningDelivery: true, price: repricerExample.min_price },
      ],
    },
  ],
  priceChanges: [
    { status: 'applied', reason: 'undercut', created_at: '2026-01-14T12:00:00.000Z' },
    { status: 'applied', reason: 'floor', created_at: '2026-01-14T18:04:00.000Z' },
  ],
});

/** What a profit the price cannot carry is refused with. */
const unpricedReason = (): string => {
  const pricing = priced({ preferredPrice: 10, preferredProfit: 20, minProfit: 0 });
  if (pricing.ok) throw new Error('The 422 example was priced');
  return pricing.reason;
};

export const offerExample: Offer = {
  id: 204,
  offer_id: 'AMZ-B0C7K2XQ9D-1',
  offer_price: 99.5,
  offer_status: 'buyable',
  stock_status: 'in_stock',
  competitiveness: 'high',
  total_competitors: 4,
  winning: true,
  winning_delivery: true,
  winning_price: 99.5,
  rating_avg: 4.7,
  rating_count: '1287',
  seller_id: 'demo-seller',
  seller_name: 'Demo Seller',
  url: 'https://www.amazon.com/dp/B0C7K2XQ9D',
  last_seen_at: '2026-01-15T08:58:03.120Z',
  product: productExample,
  created_at: CREATED,
  updated_at: UPDATED,
};

export const offersPageExample: OffersPage = { meta: { total: 37, limit: 1, start: 0 }, offers: [offerExample] };
export const repricersPageExample = { meta: { total: 3, limit: 1, start: 0 }, repricers: [repricerExample] };

/** A decision of the example repricer from the preview's market: the preview's explanation is the one it stores. */
export const priceChangeExample: PriceChange = {
  id: 42,
  uid: '9b0e6c2d-1f4a-4e8b-a3c5-7d2f1e0b9a61',
  repricer_id: repricerExample.id,
  offer_id: repricerPreviewExample.offers[0]!.offer_id,
  product_code: repricerExample.product.code,
  connector: repricerExample.connector_type.uid,
  old_price: repricerPreviewExample.offers[0]!.current_price,
  new_price: repricerPreviewExample.target.final_price!,
  reason: repricerPreviewExample.target.reason!,
  lowest_competitor_price: repricerPreviewExample.target.steps[0]!.price,
  competitor_offer_id: repricerPreviewExample.target.steps[0]!.offer_id,
  status: 'applied',
  status_reason: null,
  sent_price: repricerPreviewExample.target.final_price!,
  sent_at: '2026-11-22T10:15:31.480Z',
  applied_at: '2026-11-22T10:15:33.012Z',
  explanation: repricerPreviewExample.target,
  created_at: '2026-11-22T10:15:30.123Z',
  updated_at: '2026-11-22T10:15:33.012Z',
};

/** `POST /v1/price-changes/{id}/apply`: a suggestion taken, queued for the sender. */
export const appliedPriceChangeExample: PriceChange = {
  ...priceChangeExample,
  status: 'pending',
  sent_price: null,
  sent_at: null,
  applied_at: null,
  updated_at: '2026-11-22T10:20:05.250Z',
};

export const priceChangesPageExample = { meta: { total: 12, limit: 1, start: 0 }, price_changes: [priceChangeExample] };

export const importJobExample: ImportJob = {
  id: 4,
  uid: '0d3f5b0e-7c1a-4c39-9a55-3e0f1f6f2b1d',
  import_type: 'offers',
  status: 'completed',
  trigger_type: 'public_api',
  total: 3,
  processed: 3,
  created: 2,
  updated: 0,
  skipped: 1,
  invalid: 0,
  errors: [],
  start_time: '2026-11-22T10:15:31.020Z',
  end_time: '2026-11-22T10:15:31.480Z',
  created_at: '2026-11-22T10:15:30.123Z',
  updated_at: '2026-11-22T10:15:31.480Z',
};

export const failedImportJobExample: ImportJob = {
  ...importJobExample,
  id: 5,
  uid: '6a2c1f4e-2b7d-4d0a-8f6e-9b1c3d5e7f90',
  status: 'failed',
  processed: 0,
  created: 0,
  skipped: 0,
  invalid: 1,
  errors: [{ line: 2, message: 'offer_price: Invalid input: expected number, received string' }],
  start_time: '2026-11-22T10:16:02.000Z',
  end_time: '2026-11-22T10:16:02.000Z',
  created_at: '2026-11-22T10:16:02.000Z',
  updated_at: '2026-11-22T10:16:02.000Z',
};

export const importsPageExample = { meta: { total: 2, limit: 100, start: 0 }, imports: [importJobExample, failedImportJobExample] };

export const importBodyExample = [
  '{"offer_id":"OFR-000031","product_code":"DEMO-001","offer_price":47.5,"offer_status":"buyable","stock_status":"in_stock","competitiveness":"high","total_competitors":3,"winning":false,"winning_delivery":false,"winning_price":46.99,"rating_avg":4.6,"rating_count":"312","seller_id":"seller-77","seller_name":"Kettle World","url":"https://marketplace.example/offers/OFR-000031","last_seen_at":null}',
  '',
].join('\n');

/** A 400 as `schema` answers `input`, with zod's own messages. */
export const validationExample = (schema: z.ZodType, input: unknown, detail?: string): Problem => {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('The invalid example was accepted');
  return validationFailed(toFieldErrors(result.error.issues), detail).problem;
};

/** Problem examples by status; an operation may give its own for a status (e.g. its 404). */
export const problemExamples = {
  400: () => validationExample(createRepricerBody, { product_code: productExample.code, preferred_price: '100', preferred_profit: -1 }),
  401: () => STANDARD_PROBLEMS.unauthorized,
  404: () => repricerNotFound().problem,
  405: () => STANDARD_PROBLEMS.methodNotAllowed,
  409: () => conflict(`A repricer for this product and connector already exists: ${repricerExample.id}.`, { existing_id: repricerExample.id }).problem,
  412: () => preconditionFailed().problem,
  413: () => STANDARD_PROBLEMS.tooLarge,
  415: () => STANDARD_PROBLEMS.unsupportedMediaType,
  422: () => unprocessable(unpricedReason()).problem,
  429: () => STANDARD_PROBLEMS.throttled,
  500: () => STANDARD_PROBLEMS.internal,
  503: () => STANDARD_PROBLEMS.unavailable,
  504: () => STANDARD_PROBLEMS.timeout,
} satisfies Record<number, () => Problem>;

export type ProblemStatus = keyof typeof problemExamples;

export const createWebhookExample = { url: 'https://seller.example.com/hooks/repricer', event_types: ['REPRICER_PRICE_CHANGED'] };
export const webhookExample: Webhook = {
  id: 3,
  uid: '2c7d4f8e-5a1b-4c3d-9e8f-0a1b2c3d4e5f',
  ...createWebhookExample,
  event_types: ['REPRICER_PRICE_CHANGED'],
  created_at: CREATED,
};
export const webhookDeliveriesExample = {
  meta: { limit: 100 },
  deliveries: [
    {
      id: `3-REPRICER_PRICE_CHANGED-${priceChangeExample.id}`,
      event_type: 'REPRICER_PRICE_CHANGED',
      event_timestamp: priceChangeExample.created_at,
      status: 'delivered',
      attempts: 2,
      last_status_code: 200,
      last_error: null,
      last_attempt_at: '2026-11-22T10:16:01.002Z',
      next_attempt_at: null,
      delivered_at: '2026-11-22T10:16:01.002Z',
      created_at: '2026-11-22T10:15:30.456Z',
      updated_at: '2026-11-22T10:16:01.002Z',
    },
  ],
};

export const putConnectionExample = {
  api_key: 'tk_live_0000000000000000000000003f9a',
  webhook_secret: 'whsec_marketplace_0000000000000000',
  mode: 'suggest',
  seller_id: '1000001',
};
export const patchConnectionExample = { mode: 'suggest', safety: { max_step_percent: 10 } };
export const connectionExample: Connection = {
  connector: 'takealot',
  uid: '9b2e7c4a-3d1f-4e5a-8b6c-7d8e9f0a1b2c',
  key_last4: '3f9a',
  webhook_secret_set: true,
  mode: 'suggest',
  status: 'connected',
  seller_id: '1000001',
  seller_id_source: 'client',
  entries_skipped: 0,
  safety: DEFAULT_SAFETY,
  last_sync_at: null,
  last_error: null,
  sync_requested_at: null,
  offers_synced: 0,
  prices_sent: 0,
  created_at: CREATED,
  updated_at: CREATED,
};
