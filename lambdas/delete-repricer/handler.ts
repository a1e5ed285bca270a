import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { deleteRepricer } from '../shared/data/repricers.js';
import { getRepricer } from '../shared/data/repricers-read.js';
import { conflict } from '../shared/http/errors.js';
import { httpHandler } from '../shared/http/handler.js';
import { repricerNotFound } from '../shared/http/not-found.js';
import { idParameter } from '../shared/http/path.js';
import { ifMatchOf, requireMatch } from '../shared/http/preconditions.js';
import { SECURITY_HEADERS } from '../shared/http/responses.js';

/** Re-reads after losing a race, this many times in all; with If-Match the second read answers 412. */
const MAX_ATTEMPTS = 5;

/**
 * DELETE /v1/repricers/{id}: 204 without a body. The repricer, its views and its slot go in
 * one transaction, so a new repricer for the same product and connector can be created after.
 */
export const deleteRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  if (id === undefined) throw repricerNotFound();
  const ifMatch = ifMatchOf(event);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await getRepricer(tenant.clientId, id);
    if (!current) throw repricerNotFound();
    requireMatch(ifMatch, current.version);
    if (await deleteRepricer(tenant.clientId, current)) return { statusCode: 204, headers: { ...SECURITY_HEADERS }, body: '' };
  }
  throw conflict('The repricer kept changing while this delete was applied; retry.');
};

export const handler = httpHandler(deleteRepricerRoute);
