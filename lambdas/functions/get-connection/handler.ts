import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { getConnection } from '../../data/connections/connections.js';
import { connectionNotFound, connectorParameter } from '../../http/connection-route.js';
import { httpHandler } from '../../http/handler.js';
import { json } from '../../http/responses.js';

/** GET /v1/connections/{connector}: the connection, without its key or webhook secret. */
export const getConnectionRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const connector = connectorParameter(event);
  const stored = connector === undefined ? undefined : await getConnection(tenant.clientId, connector);
  if (!stored) throw connectionNotFound();
  return json(200, stored.record);
};

export const handler = httpHandler(getConnectionRoute);
