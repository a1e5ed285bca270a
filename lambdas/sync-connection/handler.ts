import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../auth/tenant.js';
import { requestSync } from '../data/connections/connections.js';
import { connectionNotFound, connectorParameter } from '../http/connection-route.js';
import { httpHandler } from '../http/handler.js';
import { json } from '../http/responses.js';

/**
 * POST /v1/connections/{connector}/sync: 202 with the connection; records `sync_requested_at`,
 * which the next tick of the market schedule takes as a request for a full sync (own offers and every product's page: docs/market-loop.md).
 */
export const syncConnectionRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const connector = connectorParameter(event);
  const record = connector === undefined ? undefined : await requestSync(tenant.clientId, connector);
  if (!record) throw connectionNotFound();
  return json(202, record);
};

export const handler = httpHandler(syncConnectionRoute);
