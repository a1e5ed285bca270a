import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { getWebhook } from '../../data/webhooks/webhooks.js';
import { httpHandler } from '../../http/handler.js';
import { webhookNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { json } from '../../http/responses.js';

/** GET /v1/webhooks/{id}: the webhook, without its secret. */
export const getWebhookRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  const stored = id === undefined ? undefined : await getWebhook(tenant.clientId, id);
  if (!stored) throw webhookNotFound();
  return json(200, stored.record);
};

export const handler = httpHandler(getWebhookRoute);
