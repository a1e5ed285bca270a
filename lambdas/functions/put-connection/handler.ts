import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { getConnectorType } from '../../data/connections/connectors.js';
import { putConnection } from '../../data/connections/connections.js';
import { connectedRecord, putConnectionBody } from '../../domain/connections.js';
import {
  connectionChanged,
  connectorNotConnectable,
  connectorNotFound,
  connectorParameter,
  keyRejected,
  marketplaceUnavailable,
} from '../../http/connection-route.js';
import { httpHandler } from '../../http/handler.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';
import { logger } from '../../observability/logger.js';
import { MarketplaceRateLimited, type MarketplacePort } from '../../marketplace/port.js';
import { marketplaceFor, type MarketplaceLookup } from '../../marketplace/registry.js';
import { sealConnectionSecret } from '../../marketplace/secrets.js';
import { nowIso } from '../../config/clock.js';

/** Asks the marketplace whether it takes the key; any fault there is a 503 and nothing is stored. */
const checkWithMarketplace = async (port: MarketplacePort, apiKey: string, connector: string): Promise<void> => {
  let verdict: 'accepted' | 'rejected';
  try {
    verdict = await port.checkKey(apiKey);
  } catch (error) {
    // The adapter's errors never hold the key; only their name and message are logged.
    logger.warn('The marketplace could not check an API key', { connector, errorName: (error as Error).name, errorMessage: (error as Error).message });
    throw error instanceof MarketplaceRateLimited ? marketplaceUnavailable(error.retryAfterMs / 1000) : marketplaceUnavailable();
  }
  if (verdict === 'rejected') throw keyRejected();
};

/**
 * PUT /v1/connections/{connector}: connects the client to the connector's marketplace, or
 * replaces the key, webhook secret and mode of the connection there is (201 / 200), keeping
 * everything the PUT does not name (a pause, the seller-API hold, the counters). The key is
 * checked with the marketplace first: refused, 422; not checkable now, 503; in either case
 * nothing is stored. Then it is stored sealed and shown only by its last four characters. The
 * kill switch does not need this route or the marketplace: PATCH sets the mode alone.
 */
export const putConnectionRoute =
  (lookup: (connector: string) => MarketplaceLookup = marketplaceFor) =>
  async (event: APIGatewayProxyEvent) => {
    const tenant = tenantOf(event);
    const connector = connectorParameter(event);
    if (connector === undefined) throw connectorNotFound();
    // The body is checked before anything is read: a bad request costs the table nothing.
    const body = parseOrThrow(putConnectionBody, event.body);
    if (!(await getConnectorType(connector))) throw connectorNotFound();
    const marketplace = lookup(connector);
    if (marketplace.kind === 'unsupported') throw connectorNotConnectable();
    if (marketplace.kind === 'unconfigured') {
      logger.error('The marketplace of this connector has no base URLs on this stage', { connector });
      throw marketplaceUnavailable();
    }
    await checkWithMarketplace(marketplace.port, body.api_key, connector);

    const sealedKey = await sealConnectionSecret('marketplace-key', tenant.clientId, connector, body.api_key);
    const sealedWebhookSecret =
      body.webhook_secret === undefined ? undefined : await sealConnectionSecret('marketplace-webhook-secret', tenant.clientId, connector, body.webhook_secret);
    const now = nowIso();
    const input = { apiKey: body.api_key, webhookSecretSet: body.webhook_secret !== undefined, mode: body.mode, sellerId: body.seller_id, safety: body.safety };
    // Built from the connection as read just before the write, and again if its status moved meanwhile (a pause stays).
    const result = await putConnection(tenant.clientId, connector, { sealedKey, sealedWebhookSecret }, (before) =>
      connectedRecord(connector, input, before, now),
    );
    if (result.kind === 'changed') throw connectionChanged();
    return result.kind === 'replaced' ? json(200, result.record) : json(201, result.record, { Location: `/v1/connections/${connector}` });
  };

export const handler = httpHandler(putConnectionRoute(), { jsonBody: true });
