import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { deleteConnection } from '../../data/connections/connections.js';
import { connectionNotFound, connectorParameter } from '../../http/connection-route.js';
import { httpHandler } from '../../http/handler.js';
import { SECURITY_HEADERS } from '../../http/responses.js';

/**
 * DELETE /v1/connections/{connector}: 204; the key and webhook secret are gone, so nothing more
 * is synced or sent. The products and offers synced so far stay.
 */
export const deleteConnectionRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const connector = connectorParameter(event);
  if (connector === undefined || !(await deleteConnection(tenant.clientId, connector))) throw connectionNotFound();
  return { statusCode: 204, headers: { ...SECURITY_HEADERS }, body: '' };
};

export const handler = httpHandler(deleteConnectionRoute);
