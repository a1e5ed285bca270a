import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { offerQueryParameters, planOfferQuery } from '../../domain/offer-query.js';
import { listOffers } from '../../data/offers/read.js';
import { httpHandler } from '../../http/handler.js';
import { singleQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';

/** GET /v1/offers: one page of the client's offers with exact `meta`. */
export const listOffersRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const params = parseOrThrow(offerQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.');
  const query = planOfferQuery(params);
  const page = await listOffers(tenant.clientId, query);
  return json(200, { meta: { total: page.total, limit: query.limit, start: query.start }, offers: page.offers });
};

export const handler = httpHandler(listOffersRoute);
