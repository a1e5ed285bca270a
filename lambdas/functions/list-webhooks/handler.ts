import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { listWebhooks } from '../../data/webhooks/webhooks.js';
import { httpHandler } from '../../http/handler.js';
import { noQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';

/** GET /v1/webhooks: all of the client's webhooks (at most five, so one page), by id, without secrets. */
export const listWebhooksRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  noQueryParameters(event);
  const webhooks = (await listWebhooks(tenant.clientId)).map((stored) => stored.record);
  return json(200, { webhooks });
};

export const handler = httpHandler(listWebhooksRoute);
