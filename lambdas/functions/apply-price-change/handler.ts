import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { applyPriceChange } from '../../data/price-changes/find.js';
import { conflict } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { idempotentRequests } from '../../http/idempotency.js';
import { priceChangeNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { json } from '../../http/responses.js';
import { nowIso } from '../../config/clock.js';

/**
 * POST /v1/price-changes/{id}/apply: the client takes a suggestion (suggest mode); 200 with
 * the price change, now `pending` for the sender. 409 when it is no longer `suggested`.
 */
export const applyPriceChangeRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  if (id === undefined) throw priceChangeNotFound();
  const outcome = await applyPriceChange(tenant.clientId, id, nowIso());
  if (outcome.kind === 'notFound') throw priceChangeNotFound();
  if (outcome.kind === 'notSuggested') {
    throw conflict(`Price change ${id} is ${outcome.status}: only a suggested price change can be applied.`);
  }
  return json(200, outcome.record);
};

// A retry with the same Idempotency-Key answers the first 200 again, not a 409 for a change no longer suggested.
export const handler = httpHandler(applyPriceChangeRoute).use(idempotentRequests());
