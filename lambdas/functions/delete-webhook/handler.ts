import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { deleteWebhook } from '../../data/webhooks/webhooks.js';
import { httpHandler } from '../../http/handler.js';
import { webhookNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { SECURITY_HEADERS } from '../../http/responses.js';

/** DELETE /v1/webhooks/{id}: 204; the webhook receives nothing more and its place is free. */
export const deleteWebhookRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  if (id === undefined || !(await deleteWebhook(tenant.clientId, id))) throw webhookNotFound();
  return { statusCode: 204, headers: { ...SECURITY_HEADERS }, body: '' };
};

export const handler = httpHandler(deleteWebhookRoute);
