import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { resumeConnection } from '../../data/connections/connections.js';
import { connectionNotFound, connectorParameter } from '../../http/connection-route.js';
import { conflict } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { idempotentRequests } from '../../http/idempotency.js';
import { json } from '../../http/responses.js';

/**
 * POST /v1/connections/{connector}/resume: 200 with the connection, `connected` again after the
 * circuit breaker paused it; 409 when it is not paused. The status change reaches the price
 * sender through the table's stream: the changes it held are checked again and sent (the
 * latest per offer), and the client hears CONNECTION_STATUS_CHANGED.
 */
export const resumeConnectionRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const connector = connectorParameter(event);
  const result = connector === undefined ? undefined : await resumeConnection(tenant.clientId, connector);
  if (result === undefined) throw connectionNotFound();
  if (result === 'not_paused') throw conflict('The connection is not paused: only a connection the circuit breaker paused can be resumed.');
  return json(200, result);
};

// A retry with the same Idempotency-Key answers the first 200 again, not a 409 for a connection no longer paused.
export const handler = httpHandler(resumeConnectionRoute).use(idempotentRequests());
