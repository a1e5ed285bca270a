import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { patchConnection } from '../../data/connections/connections.js';
import { patchConnectionBody } from '../../domain/connections.js';
import { connectionChanged, connectionNotFound, connectorParameter } from '../../http/connection-route.js';
import { httpHandler } from '../../http/handler.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';

/**
 * PATCH /v1/connections/{connector}: the kill switch (`mode`) and the safety limits, changed
 * without the API key and without the marketplace, so it works while the marketplace is down
 * or rate limiting. Only the fields named change; 200 with the connection as GET shows it.
 */
export const patchConnectionRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const connector = connectorParameter(event);
  if (connector === undefined) throw connectionNotFound();
  const patch = parseOrThrow(patchConnectionBody, event.body);
  const result = await patchConnection(tenant.clientId, connector, patch);
  if (result === undefined) throw connectionNotFound();
  if (result === 'changed') throw connectionChanged();
  return json(200, result);
};

export const handler = httpHandler(patchConnectionRoute, { jsonBody: true });
