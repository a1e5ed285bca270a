import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { admitSync } from '../../data/connections/sync-requests.js';
import { connectionChanged, connectionNotFound, connectorParameter, syncLimited } from '../../http/connection-route.js';
import { httpHandler } from '../../http/handler.js';
import { idempotentRequests } from '../../http/idempotency.js';
import { json } from '../../http/responses.js';
import { now } from '../../config/clock.js';

/** Says whether this request queued a full sync or joined the one already queued. */
export const SYNC_REQUEST_HEADER = 'Sync-Request';

/**
 * POST /v1/connections/{connector}/sync, limited and coalesced per connection (docs/connections.md):
 * 202 with the connection when accepted (`sync_requested_at` set: the next tick of the market
 * schedule runs a full sync, docs/market-loop.md) or when it joins the accepted sync that has not
 * run yet (`Sync-Request: coalesced`, nothing more queued); 429 with Retry-After beyond the limit.
 */
export const syncConnectionRoute = async (event: APIGatewayProxyEvent, nowMs = now()) => {
  const tenant = tenantOf(event);
  const connector = connectorParameter(event);
  const admission = connector === undefined ? { kind: 'missing' as const } : await admitSync(tenant.clientId, connector, nowMs);
  if (admission.kind === 'missing') throw connectionNotFound();
  if (admission.kind === 'changed') throw connectionChanged();
  const { decision } = admission;
  if (decision.decision === 'reject') throw syncLimited(decision.retryAfterSeconds);
  return json(202, admission.record, { [SYNC_REQUEST_HEADER]: decision.decision === 'accept' ? 'accepted' : 'coalesced' });
};

// A retry with the same Idempotency-Key answers the first 202 (and its Sync-Request) again, not counted against the limit.
export const handler = httpHandler((event: APIGatewayProxyEvent) => syncConnectionRoute(event)).use(idempotentRequests());
