import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { getOffer } from '../../data/offers/read.js';
import { httpHandler } from '../../http/handler.js';
import { offerNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { json } from '../../http/responses.js';

/** GET /v1/offers/{id}: one offer of the client's products (own or another seller's), product nested. */
export const getOfferRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  const offer = id === undefined ? undefined : await getOffer(tenant.clientId, id);
  if (!offer) throw offerNotFound();
  return json(200, offer);
};

export const handler = httpHandler(getOfferRoute);
