import {
  signedHeaders,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookEventBody,
  type WebhookEventType,
} from '../../lambdas/domain/webhooks.js';
import {
  buyboxChangedMessage,
  connectionStatusChangedMessage,
  importCompletedMessage,
  priceChangeCreatedMessage,
  priceChangeSettledMessage,
  priceWarDetectedMessage,
  type WebhookEventMessage,
} from '../../lambdas/events/webhook-events.js';
import { connectionExample, importJobExample, offerExample, priceChangeExample, repricerExample } from './examples.js';
import { schemaRef, type JsonSchema } from './schemas.js';
import { webhookEventComponent } from './webhook-names.js';

/**
 * The document's `webhooks` (OpenAPI 3.1): one POST per event type the service delivers, its
 * body the event's schema (lambdas/domain/webhooks.ts, WEBHOOK_EVENT_BODIES, registered in
 * tools/openapi/schemas.ts) and its example the body the worker would send, built by the same
 * message builders the forwarder uses and the same body builder the worker uses.
 */

const CLIENT = 'example-client';
const decided = {
  ...priceChangeExample,
  status: 'pending',
  sent_price: null,
  sent_at: null,
  applied_at: null,
  updated_at: priceChangeExample.created_at,
} as const;
const CHANGED_AT = '2026-11-22T10:05:00.000Z';

/** One event of each type, as the forwarder would queue it from the document's example records. */
const EXAMPLE_MESSAGES: { readonly [T in WebhookEventType]: WebhookEventMessage } = {
  REPRICER_PRICE_CHANGED: priceChangeCreatedMessage(CLIENT, decided),
  IMPORT_COMPLETED: importCompletedMessage(CLIENT, { ...importJobExample, status: 'completed' }, importJobExample.end_time!),
  CONNECTION_STATUS_CHANGED: connectionStatusChangedMessage(
    CLIENT,
    { ...connectionExample, status: 'unauthorized', last_error: 'The marketplace refused the key.', updated_at: CHANGED_AT },
    'connected',
  ),
  PRICE_CHANGE_APPLIED: priceChangeSettledMessage(CLIENT, { ...priceChangeExample, status: 'applied' }),
  PRICE_CHANGE_FAILED: priceChangeSettledMessage(CLIENT, {
    ...priceChangeExample,
    status: 'failed',
    status_reason: 'The marketplace refused the price.',
    applied_at: null,
  }),
  BUYBOX_WON: buyboxChangedMessage(CLIENT, {
    id: offerExample.id,
    product_code: offerExample.product.code,
    connector: repricerExample.connector_type.uid,
    fields: offerExample,
    updated_at: CHANGED_AT,
  }),
  BUYBOX_LOST: buyboxChangedMessage(CLIENT, {
    id: offerExample.id,
    product_code: offerExample.product.code,
    connector: repricerExample.connector_type.uid,
    fields: { ...offerExample, winning: false, winning_price: 97 },
    updated_at: CHANGED_AT,
  }),
  PRICE_WAR_DETECTED: priceWarDetectedMessage(CLIENT, {
    repricer_id: repricerExample.id,
    product_code: repricerExample.product.code,
    connector: repricerExample.connector_type.uid,
    offer_id: offerExample.offer_id,
    rival_offer_id: 'AMZ-B0C7K2XQ9D-7',
    rival_seller_id: '29814',
    undercuts: 4,
    reason: 'price_war_hold',
    detected_at: CHANGED_AT,
    hold_until: '2026-11-22T10:35:00.000Z',
  }),
};

/** The body text the worker would POST for the example event of `type`. */
export const webhookExampleBody = (type: WebhookEventType): string => webhookEventBody(EXAMPLE_MESSAGES[type]);

const SUMMARIES: { readonly [T in WebhookEventType]: string } = {
  REPRICER_PRICE_CHANGED: 'A repricer decided a price change',
  IMPORT_COMPLETED: 'An import job ended (completed or failed)',
  CONNECTION_STATUS_CHANGED: "A marketplace connection's status moved",
  PRICE_CHANGE_APPLIED: 'The marketplace took a price change',
  PRICE_CHANGE_FAILED: 'A price change failed',
  BUYBOX_WON: "The client's offer started winning the buy box",
  BUYBOX_LOST: "The client's offer stopped winning the buy box",
  PRICE_WAR_DETECTED: "A repricer's price-war guard detected a war and holds the price",
};

/** A secret of the form create-webhook makes, only to sign the examples (their description names it, to try a check on). */
export const EXAMPLE_SECRET = `whsec_${'0123456789abcdef'.repeat(4)}`;
const EXAMPLE_SECONDS = 1763806530;

const HEADER_DESCRIPTIONS = {
  [WEBHOOK_ID_HEADER]: "The event's id, the body's `event_id`: the same on every attempt, so a receiver drops a repeat by it.",
  [WEBHOOK_TIMESTAMP_HEADER]: "This attempt's time, Unix seconds: refuse one more than five minutes from your clock.",
  [WEBHOOK_SIGNATURE_HEADER]:
    '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the secret after `whsec_`, base64-decoded (Standard Webhooks; docs/webhooks.md).',
};

const webhookOperation = (type: WebhookEventType): JsonSchema => {
  const body = webhookExampleBody(type);
  const headers = signedHeaders(EXAMPLE_SECRET, EXAMPLE_MESSAGES[type].eventId, EXAMPLE_SECONDS, body);
  return {
    post: {
      operationId: `${webhookEventComponent(type).charAt(0).toLowerCase()}${webhookEventComponent(type).slice(1)}`,
      summary: SUMMARIES[type],
      description:
        `Sent to each of the client's webhooks subscribed to \`${type}\` (docs/webhooks.md), signed with the webhook's secret. ` +
        `The example's headers are signed with the secret \`${EXAMPLE_SECRET}\`.`,
      tags: ['Webhooks'],
      parameters: Object.entries(HEADER_DESCRIPTIONS).map(([name, description]) => ({
        name,
        in: 'header',
        required: true,
        description,
        schema: name === WEBHOOK_TIMESTAMP_HEADER ? { type: 'string', pattern: '^[0-9]+$' } : { type: 'string' },
        example: headers[name],
      })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: schemaRef(webhookEventComponent(type)), example: JSON.parse(body) as unknown } },
      },
      responses: {
        '2XX': { description: 'Received: the delivery is over, and the event is not sent again.' },
        default: { description: 'Any other answer, or none within 10 seconds: tried again with backoff for 24 hours (docs/webhooks.md).' },
      },
    },
  };
};

export const webhooksSection = (): Record<string, JsonSchema> => Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, webhookOperation(type)]));
