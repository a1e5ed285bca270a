import * as z from 'zod';
import { createRepricerBody } from '../../lambdas/domain/create-repricer.js';
import {
  competitorFilterFields,
  connectorTypeRecord,
  feeEstimates,
  listMeta,
  money,
  offerRecord,
  offersPage,
  pong,
  priceChangeRecord,
  priceWarGuard,
  productRecord,
  repricerRecord,
  timestamp,
} from '../../lambdas/domain/records.js';
import { importError, importJobRecord, importsPage } from '../../lambdas/domain/import-jobs.js';
import { priceChangeFeedMeta } from '../../lambdas/domain/price-change-feed.js';
import { updateRepricerBody } from '../../lambdas/domain/update-repricer.js';
import { appliedBound, targetExplanation } from '../../lambdas/domain/explain-target.js';
import { repricerHold, repricerMarket, repricerPreview } from '../../lambdas/domain/repricer-preview.js';
import { repricerStats } from '../../lambdas/domain/repricer-stats.js';
import { connectionRecord, connectionsList, patchConnectionBody, putConnectionBody } from '../../lambdas/domain/connections.js';
import { inStockPremium } from '../../lambdas/domain/in-stock-premium.js';
import { productDetailRecord } from '../../lambdas/domain/product-detail.js';
import {
  buyboxChangedData,
  connectionStatusChangedData,
  createdWebhookRecord,
  createWebhookBody,
  deliveriesPage,
  deliveryRecord,
  importCompletedData,
  priceWarDetectedData,
  WEBHOOK_EVENT_BODIES,
  WEBHOOK_EVENT_TYPES,
  webhookRecord,
  webhooksList,
} from '../../lambdas/domain/webhooks.js';
import { caseInsensitivePattern, regexesOf } from './patterns.js';
import { webhookEventComponent } from './webhook-names.js';
import { conflictProblemSchema, fieldErrorSchema, problemSchema } from './problem-schema.js';

/**
 * The document's component schemas, converted by zod itself from the very schemas the handlers
 * validate requests with and shape responses from. Only names and descriptions are added here.
 */
export type JsonSchema = Record<string, unknown>;

/** `GET /v1/repricers`: the list handler builds this shape from the same record and meta schemas. */
export const repricersPage = z.strictObject({ meta: listMeta, repricers: z.array(repricerRecord) });
/** `GET /v1/price-changes` and `GET /v1/repricers/{id}/price-changes`. */
export const priceChangesPage = z.strictObject({ meta: listMeta, price_changes: z.array(priceChangeRecord) });
/** `GET /v1/price-changes?updated_since=` or `?cursor=`: the changes in update order, and where to go on. */
export const priceChangesFeedPage = z.strictObject({ meta: priceChangeFeedMeta, price_changes: z.array(priceChangeRecord) });
/** `GET /v1/price-changes` answers either page: `_start` pages, or the feed when `updated_since` or `cursor` is given. */
export const priceChangesListing = z.union([priceChangesPage, priceChangesFeedPage]);
/** `GET /v1/repricers/{id}/price-changes`: the page, and the market the repricer decides from. */
export const repricerPriceChangesPage = priceChangesPage.extend({ market: repricerMarket, holds: z.array(repricerHold) });

/** Responses are described as the service writes them (`io: 'output'`). */
const responseComponents = z.registry<{ id: string }>();
responseComponents
  .add(repricerRecord, { id: 'Repricer' })
  .add(connectorTypeRecord, { id: 'ConnectorType' })
  .add(productRecord, { id: 'Product' })
  .add(productDetailRecord, { id: 'ProductDetail' })
  .add(inStockPremium, { id: 'InStockPremium' })
  .add(offerRecord, { id: 'Offer' })
  .add(offersPage, { id: 'OffersPage' })
  .add(repricersPage, { id: 'RepricersPage' })
  .add(priceChangeRecord, { id: 'PriceChange' })
  .add(priceChangesPage, { id: 'PriceChangesPage' })
  .add(priceChangesFeedPage, { id: 'PriceChangesFeedPage' })
  .add(priceChangesListing, { id: 'PriceChangesListing' })
  .add(repricerPriceChangesPage, { id: 'RepricerPriceChangesPage' })
  .add(repricerMarket, { id: 'RepricerMarket' })
  .add(repricerHold, { id: 'RepricerHold' })
  .add(repricerPreview, { id: 'RepricerPreview' })
  .add(repricerStats, { id: 'RepricerStats' })
  .add(targetExplanation, { id: 'TargetExplanation' })
  .add(listMeta, { id: 'ListMeta' })
  .add(pong, { id: 'Pong' })
  .add(importJobRecord, { id: 'ImportJob' })
  .add(importsPage, { id: 'ImportsPage' })
  .add(importError, { id: 'ImportError' })
  .add(webhookRecord, { id: 'Webhook' })
  .add(createdWebhookRecord, { id: 'CreatedWebhook' })
  .add(webhooksList, { id: 'WebhooksList' })
  .add(deliveryRecord, { id: 'WebhookDelivery' })
  .add(deliveriesPage, { id: 'WebhookDeliveriesPage' })
  .add(connectionRecord, { id: 'Connection' })
  .add(connectionsList, { id: 'ConnectionsList' })
  .add(feeEstimates, { id: 'FeeEstimates' })
  .add(problemSchema, { id: 'Problem' })
  .add(conflictProblemSchema, { id: 'ConflictProblem' })
  .add(fieldErrorSchema, { id: 'FieldError' })
  .add(importCompletedData, { id: 'ImportCompletedData' })
  .add(connectionStatusChangedData, { id: 'ConnectionStatusChangedData' })
  .add(buyboxChangedData, { id: 'BuyboxChangedData' })
  .add(priceWarDetectedData, { id: 'PriceWarDetectedData' });
// The body of each webhook event (the document's `webhooks`): what the worker POSTs.
for (const type of WEBHOOK_EVENT_TYPES) responseComponents.add(WEBHOOK_EVENT_BODIES[type], { id: webhookEventComponent(type) });

/** Requests as a client may send them (`io: 'input'`): fields with defaults are optional. */
const requestComponents = z.registry<{ id: string }>();
requestComponents
  .add(createRepricerBody, { id: 'CreateRepricerRequest' })
  .add(createWebhookBody, { id: 'CreateWebhookRequest' })
  .add(putConnectionBody, { id: 'PutConnectionRequest' })
  .add(patchConnectionBody, { id: 'PatchConnectionRequest' })
  .add(updateRepricerBody, { id: 'UpdateRepricerRequest' });

/** What JSON Schema cannot say about a zod schema (refinements), or what a name alone does not. */
export const descriptions = z.registry<{ description: string }>();
descriptions
  .add(money, { description: 'An amount with at most 2 decimals.' })
  .add(timestamp, { description: 'ISO 8601 UTC with millisecond precision.' })
  .add(feeEstimates, { description: 'Fees by connector uid, then by stock mode (`instock` when `soh` > 0, else `leadtime`).' })
  .add(repricerRecord, { description: 'A repricing rule for one product on one connector, with its computed fields.' })
  .add(repricerRecord.shape.min_price, {
    description: 'Computed: `(C + fixed_fulfilment_fee + min_profit) / (1 - r)` rounded up to the cent (docs/api.md, "Computed fields").',
  })
  .add(repricerRecord.shape.fixed_fulfilment_fee, {
    description: "Computed: the `fulfilment` fee of the product's fee estimate for the connector and stock mode.",
  })
  .add(repricerRecord.shape.min_profit, { description: "The request's `min_profit` (default 0)." })
  .add(repricerRecord.shape.unit_cost, {
    description: '`cost_based`: what a unit costs the seller, from which `min_price` and `preferred_price` are computed; null for `fixed`.',
  })
  .add(priceWarGuard, {
    description:
      'Price-war guard: after more than `undercuts` undercuts between the own offer and one rival within an hour, hold the price for ' +
      '`cooldown_minutes` (docs/repricing.md, "Price-war guard"). Null (default): no guard.',
  })
  .add(repricerRecord.shape.buybox_approach, {
    description:
      '`cheapest` (a step under the lowest competitor), `match` (equal to it), `buybox` (the Best Price slot, counting the in-stock premium) or ' +
      '`fastest_delivery` (the Fastest Delivery slot: in-stock competitors only); docs/repricing.md, "Approaches".',
  })
  .add(competitorFilterFields.exclude_seller_ids, {
    description: "Competitor filter: offers of these sellers (their `seller_id`) are ignored, e.g. the client's own other stores. Default `[]`.",
  })
  .add(competitorFilterFields.min_competitor_rating, {
    description: 'Competitor filter: offers whose seller `rating_avg` is below this are ignored; null (default) keeps every rating.',
  })
  .add(competitorFilterFields.competitor_stock, {
    description: '`any` (default): compete with every offer; `in_stock`: only with offers whose `stock_status` is `in_stock`.',
  })
  .add(competitorFilterFields.max_competitor_leadtime_days, {
    description:
      'Competitor filter: null (default) keeps every offer. Offers store only whether they ship now, not their leadtime days, and a leadtime ' +
      'offer takes at least 1 day: 0 ignores every `lead_time` offer, a larger maximum keeps them (docs/repricing.md, "Competitor filters").',
  })
  .add(offerRecord.shape.rating_count, { description: 'Numeric text, not a number.' })
  .add(productDetailRecord, { description: 'A product, with what the service has learned of it on each connector.' })
  .add(productDetailRecord.shape.in_stock_premium, {
    description:
      "By connector uid (each connector with a connection, and any learned on before): the product's in-stock premium as learned from the storefront " +
      '(docs/market-sync.md, "The in-stock premium").',
  })
  .add(inStockPremium, {
    description:
      'How much dearer, in percent of its price, an in-stock offer may be than a cheaper leadtime offer and still win Best Price: an interval ' +
      'that holds it (low rounded down, high up, 2 decimals). `observations`: the storefront reads that narrowed it; 0 is the stated default ' +
      '(0 to 10 %).',
  })
  .add(priceChangeRecord, { description: "A repricing decision: the price a repricer wants for the client's offer, and why (docs/repricing.md)." })
  .add(priceChangeRecord.shape.reason, {
    description:
      '`undercut` (a step under a competitor), `floor` (held at `min_price`), `ceiling` (held at `preferred_price`), `no_competition`, ' +
      '`match` (equal to the lowest competitor: `match`) or `in_stock_premium` (the in-stock premium rule set it: `buybox`).',
  })
  .add(priceChangeRecord.shape.status, {
    description:
      "`suggested` (waits for the client's apply), `pending` (queued for the sender), `sent` (pushed, not yet confirmed), `applied` (the marketplace " +
      'confirmed it), `failed` (will not be sent; `status_reason` says why) or `superseded` (a later decision for the offer took its place).',
  })
  .add(priceChangeRecord.shape.status_reason, { description: 'Why it failed, was superseded or is held; null while nothing needs saying.' })
  .add(priceChangeRecord.shape.sent_price, {
    description: 'The price last pushed: `new_price`, or a step toward it when the move is larger than one push may make; null until sent.',
  })
  .add(priceChangeRecord.shape.sent_at, { description: 'When its price was last pushed; null until sent.' })
  .add(priceChangeRecord.shape.applied_at, { description: 'When the marketplace confirmed the price; null until applied.' })
  .add(priceChangeRecord.shape.explanation, {
    description:
      'Why this price, as the preview explains a target (docs/repricing.md, "The explanation of a price change"); null on one stored before explanations were.',
  })
  .add(repricerPreview, {
    description:
      'What the repricer would decide now, from the product\'s offers as stored, and why; nothing is recorded (docs/repricing.md, "Preview and explanation").',
  })
  .add(repricerHold, {
    description:
      'An own offer the price-war guard holds (reason `price_war_hold`): nothing is decided for it until `until` (docs/repricing.md, "Price-war guard").',
  })
  .add(repricerPreview.shape.enabled, { description: 'False: the repricer decides nothing now; `would_decide` says what it would decide once enabled.' })
  .add(repricerPreview.shape.offers, {
    description:
      "The client's own offers of the product on the repricer's connector. `would_decide` is the price a decision would record, or null " +
      'when the engine would skip the offer (the target is its price already, or was its last decision).',
  })
  .add(targetExplanation, {
    description:
      'How the engine reached its target: the competitors considered and those excluded (`by` the filter, `not_buyable` or `other_connector`; ' +
      "at most 10 of each, the cheapest, with `competitor_counts` of all), the approach's `steps` (each a competitor, its rule and the limit it allows), " +
      'the lowest limit on the price grid (`raw_target`, null when alone), each bound in the order it is applied, and the result.',
  })
  .add(targetExplanation.shape.final_price, {
    description: 'The target price; null (with `reason`) when no price on the step grid lies between floor and ceiling, so nothing would be decided.',
  })
  .add(appliedBound, { description: '`applied`: this bound set the final price (the ceiling also when there is no competitor).' })
  .add(problemSchema, { description: 'RFC 9457 problem details; `errors` lists each invalid field of a 400.' })
  .add(conflictProblemSchema, { description: 'A problem whose `existing_id` names the repricer that already holds the (product, connector) slot.' })
  .add(createRepricerBody, { description: 'Unknown fields are refused and types are never coerced.' })
  .add(createRepricerBody.shape.preferred_price, {
    description: '`fixed`: required, greater than 0, at most 2 decimals. `cost_based`: computed from `unit_cost`, so refused.',
  })
  .add(createRepricerBody.shape.unit_cost, {
    description: '`cost_based`: required, at least 0, at most 2 decimals (docs/api.md, "Computed fields"). `fixed`: left out or null.',
  })
  .add(createRepricerBody.shape.preferred_profit, { description: 'At least 0, at most 2 decimals.' })
  .add(createRepricerBody.shape.min_profit.unwrap(), { description: 'At least 0, at most 2 decimals, not above `preferred_profit`.' })
  .add(createRepricerBody.shape.product_code, { description: 'A product of this client (else 404).' })
  .add(createRepricerBody.shape.connector, {
    description: 'A connector uid: required when the product has fee estimates for several connectors.',
  })
  .add(importJobRecord, {
    description:
      "An import job (`POST /v1/imports` or the CLI's import): `pending` until a worker starts it, `running`, then `completed` or `failed`. " +
      '`created`, `updated` and `skipped` (unchanged) count the processed lines; `invalid` and `errors` the bad ones.',
  })
  .add(importError, { description: 'A bad line (1-based) and why; the first 100 are listed.' })
  .add(createdWebhookRecord.shape.secret, { description: 'The signing secret (docs/webhooks.md): shown in this response only.' })
  .add(webhookRecord.shape.url, { description: '`https` to a public address (on `npm start` also `http://127.0.0.1` or `localhost`).' })
  .add(deliveryRecord.shape.status, {
    description: '`pending` (not yet delivered; retried with exponential backoff), `delivered` (a 2xx came back) or `dead_lettered` (no 2xx within 24 hours).',
  })
  .add(updateRepricerBody, { description: 'At least one field; a field left out keeps its value. The computed fields are recomputed.' })
  .add(patchConnectionBody, {
    description: '`mode`, `safety` (any of its limits) or both; what is left out keeps its value. Needs neither the API key nor the marketplace.',
  })
  .add(putConnectionBody.shape.api_key, {
    description: "The seller's API key for the marketplace: checked with it first, then stored encrypted, never shown again.",
  })
  .add(putConnectionBody.shape.webhook_secret, { description: "The secret of the marketplace's webhooks (its seller portal): stored encrypted, never shown." })
  .add(connectionRecord.shape.status, {
    description: '`connected` (the key was accepted), `unauthorized` (the marketplace refused it since), `paused` (the circuit breaker) or `error`.',
  });

/**
 * Corrects what the converter gets wrong for these schemas: it drops a pattern's `i` flag, and
 * writes `format: uri` (RFC 3986) for `z.url()`, which accepts whatever WHATWG URL parsing
 * accepts (spaces included): records the service stores and returns would break that format.
 */
const override = ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }): void => {
  const def = zodSchema._zod.def as { format?: string; protocol?: RegExp };
  if (def.format === 'url' && jsonSchema.format === 'uri') {
    delete jsonSchema.format;
    const protocol = def.protocol ? ` whose scheme matches /${def.protocol.source}/` : '';
    jsonSchema.description = `A URL${protocol}, as WHATWG URL parsing accepts it (not necessarily RFC 3986: it may hold spaces).`;
  }
  const regexes = regexesOf(zodSchema);
  if (!regexes.some((regex) => regex.flags.includes('i'))) return;
  if (regexes.length !== 1 || jsonSchema.pattern !== regexes[0]!.source) throw new Error(`Cannot document the case-insensitive pattern ${String(regexes)}`);
  jsonSchema.pattern = caseInsensitivePattern(regexes[0]!.source);
};

const COMPONENT_REF = '#/components/schemas/';
export const schemaRef = (id: string): JsonSchema => ({ $ref: `${COMPONENT_REF}${id}` });

/** Each component stands alone under components.schemas: no `$schema` / `$id` of its own. */
const asComponent = ({ $schema: _schema, $id: _id, ...schema }: JsonSchema): JsonSchema => schema;

const convert = (registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output'): Record<string, JsonSchema> => {
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io, metadata: descriptions, override, uri: (id) => `${COMPONENT_REF}${id}` });
  if ('__shared' in schemas) throw new Error('A schema is reused without a component name: register it in tools/openapi/schemas.ts');
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, asComponent(schema as JsonSchema)]));
};

export const componentSchemas = (): Record<string, JsonSchema> => {
  const responses = convert(responseComponents, 'output');
  const requests = convert(requestComponents, 'input');
  const clash = Object.keys(requests).find((id) => id in responses);
  if (clash) throw new Error(`Component ${clash} is both a request and a response schema`);
  return Object.fromEntries(Object.entries({ ...responses, ...requests }).sort(([a], [b]) => a.localeCompare(b)));
};

/** A parameter's schema, as the client writes it (query values are text before parsing). */
export const parameterSchema = (schema: z.ZodType): JsonSchema =>
  asComponent(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', metadata: descriptions, override }));
