import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { listConnections } from '../shared/data/connections.js';
import { validationFailed } from '../shared/http/errors.js';
import { httpHandler } from '../shared/http/handler.js';
import { singleQueryParameters } from '../shared/http/query.js';
import { json } from '../shared/http/responses.js';

/** GET /v1/connections: all of the client's connections (one per connector type, so one page), by connector. */
export const listConnectionsRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const unknown = Object.keys(singleQueryParameters(event));
  if (unknown.length > 0)
    throw validationFailed(
      unknown.map((field) => ({ field, message: 'This operation takes no query parameters.' })),
      'The query parameters are not valid.',
    );
  const connections = (await listConnections(tenant.clientId)).map((stored) => stored.record);
  return json(200, { connections });
};

export const handler = httpHandler(listConnectionsRoute);
