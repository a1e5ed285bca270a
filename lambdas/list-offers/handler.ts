import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { offerQueryParameters, planOfferQuery } from '../shared/domain/offer-query.js';
import { listOffers } from '../shared/data/offers-read.js';
import { validationFailed } from '../shared/http/errors.js';
import { httpHandler } from '../shared/http/handler.js';
import { singleQueryParameters } from '../shared/http/query.js';
import { json } from '../shared/http/responses.js';
import { parseOrThrow } from '../shared/http/validation.js';

/** GET /v1/offers: one page of the client's offers with exact `meta`. */
export const listOffersRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const params = parseOrThrow(offerQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.');
  const plan = planOfferQuery(params);
  if (!plan.ok) throw validationFailed([plan.problem], 'This combination of filter and sort is not supported.');
  const page = await listOffers(tenant.clientId, plan.query);
  return json(200, { meta: { total: page.total, limit: plan.query.limit, start: plan.query.start }, offers: page.offers });
};

export const handler = httpHandler(listOffersRoute);
