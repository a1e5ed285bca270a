import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { planRepricerQuery, repricerQueryParameters } from '../../domain/repricer-query.js';
import { listRepricers } from '../../data/repricers/read.js';
import { httpHandler } from '../../http/handler.js';
import { singleQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';

/** GET /v1/repricers: one page of the client's repricers with exact `meta`. */
export const listRepricersRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const params = parseOrThrow(repricerQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.');
  const query = planRepricerQuery(params);
  const page = await listRepricers(tenant.clientId, query);
  return json(200, { meta: { total: page.total, limit: query.limit, start: query.start }, repricers: page.repricers });
};

export const handler = httpHandler(listRepricersRoute);
