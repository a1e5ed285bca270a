import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { pong } from '../../domain/records.js';
import { httpHandler } from '../../http/handler.js';
import { json } from '../../http/responses.js';

/**
 * GET /v1/ping: lets a client test its credentials. The authorizer has already read the client;
 * this handler reads nothing.
 */
export const pingRoute = (event: APIGatewayProxyEvent) => Promise.resolve(json(200, pong.parse({ pong: true, client: tenantOf(event).username })));

export const handler = httpHandler(pingRoute);
