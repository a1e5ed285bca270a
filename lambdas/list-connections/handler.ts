import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { listConnections } from '../shared/data/connections.js';
import { httpHandler } from '../shared/http/handler.js';
import { noQueryParameters } from '../shared/http/query.js';
import { json } from '../shared/http/responses.js';

/** GET /v1/connections: all of the client's connections (one per connector type, so one page), by connector. */
export const listConnectionsRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  noQueryParameters(event);
  const connections = (await listConnections(tenant.clientId)).map((stored) => stored.record);
  return json(200, { connections });
};

export const handler = httpHandler(listConnectionsRoute);
