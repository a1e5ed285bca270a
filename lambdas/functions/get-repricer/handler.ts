import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { getRepricer } from '../../data/repricers/read.js';
import { httpHandler } from '../../http/handler.js';
import { repricerNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { etagOf } from '../../http/preconditions.js';
import { json } from '../../http/responses.js';

/** GET /v1/repricers/{id}: the record, with the ETag a later PATCH or DELETE can name. */
export const getRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  const stored = id === undefined ? undefined : await getRepricer(tenant.clientId, id);
  if (!stored) throw repricerNotFound();
  return json(200, stored.record, { ETag: etagOf(stored.version) });
};

export const handler = httpHandler(getRepricerRoute);
