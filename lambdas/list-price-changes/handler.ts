import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { planPriceChangeQuery, priceChangeQueryParameters, repricerPriceChangeQueryParameters } from '../shared/domain/price-change-query.js';
import { emptyPriceChangePage, listPriceChanges } from '../shared/data/price-changes-read.js';
import { httpHandler } from '../shared/http/handler.js';
import { repricerNotFound } from '../shared/http/not-found.js';
import { idParameter } from '../shared/http/path.js';
import { singleQueryParameters } from '../shared/http/query.js';
import { json } from '../shared/http/responses.js';
import { parseOrThrow } from '../shared/http/validation.js';

/**
 * GET /v1/price-changes and GET /v1/repricers/{id}/price-changes: one page of the client's
 * repricing decisions with exact `meta`. A repricer that is not the client's is a 404.
 */
export const listPriceChangesRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const inPath = event.pathParameters?.id !== undefined;
  const id = inPath ? idParameter(event) : undefined;
  if (inPath && id === undefined) throw repricerNotFound();
  const query = inPath
    ? planPriceChangeQuery(parseOrThrow(repricerPriceChangeQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.'), id)
    : planPriceChangeQuery(parseOrThrow(priceChangeQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.'));
  const found = await listPriceChanges(tenant.clientId, query);
  if (!found && inPath) throw repricerNotFound();
  const page = found ?? emptyPriceChangePage();
  return json(200, { meta: { total: page.total, limit: query.limit, start: query.start }, price_changes: page.priceChanges });
};

export const handler = httpHandler(listPriceChangesRoute);
