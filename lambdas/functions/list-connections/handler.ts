import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { listConnections } from '../../data/connections/connections.js';
import { httpHandler } from '../../http/handler.js';
import { noQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';

/** GET /v1/connections: all of the client's connections (one per connector type, so one page), by connector. */
export const listConnectionsRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  noQueryParameters(event);
  const connections = (await listConnections(tenant.clientId)).map((stored) => stored.record);
  return json(200, { connections });
};

export const handler = httpHandler(listConnectionsRoute);
