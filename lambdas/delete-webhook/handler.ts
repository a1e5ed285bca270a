import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { deleteWebhook } from '../shared/data/webhooks.js';
import { httpHandler } from '../shared/http/handler.js';
import { webhookNotFound } from '../shared/http/not-found.js';
import { idParameter } from '../shared/http/path.js';
import { SECURITY_HEADERS } from '../shared/http/responses.js';

/** DELETE /v1/webhooks/{id}: 204; the webhook receives nothing more and its place is free. */
export const deleteWebhookRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  if (id === undefined || !(await deleteWebhook(tenant.clientId, id))) throw webhookNotFound();
  return { statusCode: 204, headers: { ...SECURITY_HEADERS }, body: '' };
};

export const handler = httpHandler(deleteWebhookRoute);
