import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod';
import { findConnectionByUid, getConnection, recordSyncOutcome } from '../../data/connections/connections.js';
import { recordMarketplaceEvent } from '../../data/market/marketplace-events.js';
import { MAX_BODY_BYTES } from '../../http/body-limit.js';
import { httpHandler } from '../../http/handler.js';
import { pathParameter } from '../../http/path.js';
import { json, problemResponse } from '../../http/responses.js';
import { logger } from '../../observability/logger.js';
import { marketplaceFor, type MarketplaceLookup } from '../../marketplace/registry.js';
import { EVENT_RECEIVED, EVENT_REFUSED } from './answers.js';
import { headersOf, publicUrlOf, rawBodyBytes, rawBodyOf } from './request.js';
import { openWebhookSecret, type WebhookSecretOpener } from './webhook-secret.js';

/**
 * POST /v1/marketplace-events/{uid}: a marketplace's webhook for one connection (no Basic auth:
 * the marketplace signs instead). A verified event seen for the first time is recorded (one
 * conditional put) and answered 200; its item on the table's stream brings the connection's
 * next look forward. Everything else gets the same 401, byte for byte, and changes nothing:
 * the answer does not tell an unknown uid from a bad signature or a repeat. Only the log says
 * why (never the secret, never the body).
 */

const connectionUid = z.uuid();

export type RefusalReason =
  | 'not-a-connection-uid'
  | 'unknown-connection'
  | 'no-webhook-secret'
  | 'no-marketplace-adapter'
  | 'body-too-large'
  | 'unsigned'
  | 'bad-signature'
  | 'repeated-delivery';

const refuse = (reason: RefusalReason, context: Record<string, unknown> = {}): APIGatewayProxyResult => {
  logger.warn('A marketplace event was refused', { reason, ...context });
  return problemResponse(EVENT_REFUSED);
};

/** Whether the request carries the marketplace's signature header at all (a refusal says `unsigned` without it). */
const hasSignature = (headers: Record<string, string>, header: string) => Object.keys(headers).some((name) => name.toLowerCase() === header);

export const receiveMarketplaceEventRoute =
  (lookup: (connector: string) => MarketplaceLookup = marketplaceFor, openSecret: WebhookSecretOpener = openWebhookSecret()) =>
  async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const uid = pathParameter(event, 'uid');
    if (uid === undefined || !connectionUid.safeParse(uid).success) return refuse('not-a-connection-uid');
    // Before any read: an over-size body costs nothing.
    if (rawBodyBytes(event) > MAX_BODY_BYTES) return refuse('body-too-large', { uid });
    const owner = await findConnectionByUid(uid);
    if (!owner) return refuse('unknown-connection', { uid });
    const context = { clientId: owner.clientId, connector: owner.connector, uid };
    const stored = await getConnection(owner.clientId, owner.connector);
    // A lookup left behind by a replaced connection names another uid: not this one's.
    if (!stored || stored.record.uid !== uid) return refuse('unknown-connection', context);
    if (!stored.sealedWebhookSecret) return refuse('no-webhook-secret', context);
    const market = lookup(owner.connector);
    if (market.kind !== 'adapter') return refuse('no-marketplace-adapter', { ...context, lookup: market.kind });
    const secret = await openSecret(owner.clientId, owner.connector, stored.sealedWebhookSecret);
    const headers = headersOf(event);
    const verified = market.port.verifyEvent(secret, { url: publicUrlOf(event), headers, body: rawBodyOf(event) });
    if (!verified) return refuse(hasSignature(headers, market.marketplace.signatureHeader) ? 'bad-signature' : 'unsigned', context);
    const outcome = await recordMarketplaceEvent(owner.clientId, { uid, connector: owner.connector }, verified);
    if (outcome === 'repeat') return refuse('repeated-delivery', { ...context, deliveryId: verified.deliveryId });
    // The marketplace names the seller in its signed events: the one statement of who the client is that no rival can fake.
    if (verified.sellerId !== undefined && stored.record.seller_id === null) {
      await recordSyncOutcome(owner.clientId, stored.record, { seller_id: verified.sellerId, seller_id_source: 'marketplace' });
    }
    logger.info('A marketplace event was received', { ...context, deliveryId: verified.deliveryId, eventType: verified.type, offerId: verified.offerId });
    return json(200, EVENT_RECEIVED);
  };

// No body parser: the signature covers the body exactly as sent. Its size is checked above, so it is refused like any other bad event.
export const handler = httpHandler(receiveMarketplaceEventRoute());
