import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { webhookDeliveriesQuery } from '../../domain/webhook-query.js';
import { getWebhook, listDeliveries } from '../../data/webhooks/webhooks.js';
import { httpHandler } from '../../http/handler.js';
import { webhookNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { singleQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';

/**
 * GET /v1/webhooks/{id}/deliveries: the webhook's latest deliveries, newest event first, each
 * with its status (`pending`, `delivered`, `dead_lettered`), attempts and last outcome.
 */
export const listWebhookDeliveriesRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  const { _limit: limit = 100 } = parseOrThrow(webhookDeliveriesQuery, singleQueryParameters(event), 'The query parameters are not valid.');
  if (id === undefined || !(await getWebhook(tenant.clientId, id))) throw webhookNotFound();
  const deliveries = await listDeliveries(tenant.clientId, id, limit);
  return json(200, { meta: { limit }, deliveries });
};

export const handler = httpHandler(listWebhookDeliveriesRoute);
