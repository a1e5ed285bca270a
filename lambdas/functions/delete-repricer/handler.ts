import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { deleteRepricer } from '../../data/repricers/write.js';
import { conflict } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { repricerNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { ifMatchOf, requireMatch } from '../../http/preconditions.js';
import { SECURITY_HEADERS } from '../../http/responses.js';

/**
 * DELETE /v1/repricers/{id}: 204 without a body. The repricer, its listing and its slot go in
 * one transaction, so a new repricer for the same product and connector can be created after.
 */
export const deleteRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  if (id === undefined) throw repricerNotFound();
  const ifMatch = ifMatchOf(event);
  const outcome = await deleteRepricer(tenant.clientId, id, (current) => requireMatch(ifMatch, current.version));
  if (outcome.kind === 'missing') throw repricerNotFound();
  if (outcome.kind === 'contended') throw conflict('The repricer kept changing while this delete was applied; retry.');
  return { statusCode: 204, headers: { ...SECURITY_HEADERS }, body: '' };
};

export const handler = httpHandler(deleteRepricerRoute);
