import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { findPriceChange } from '../../data/price-changes/find.js';
import { httpHandler } from '../../http/handler.js';
import { priceChangeNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { json } from '../../http/responses.js';

/**
 * GET /v1/price-changes/{id}: one price change as it stands now, with the explanation of its
 * decision. Another client's or an unknown id is a 404, as for the apply.
 */
export const getPriceChangeRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  const found = id === undefined ? undefined : await findPriceChange(tenant.clientId, id);
  if (!found) throw priceChangeNotFound();
  return json(200, found.stored.record);
};

export const handler = httpHandler(getPriceChangeRoute);
