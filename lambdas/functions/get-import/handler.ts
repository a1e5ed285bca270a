import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { getImportJob } from '../../data/imports/imports.js';
import { httpHandler } from '../../http/handler.js';
import { importNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { json } from '../../http/responses.js';

/** GET /v1/imports/{id}: the job with its counters; another client's job is a 404 like a missing one. */
export const getImportRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  const stored = id === undefined ? undefined : await getImportJob(tenant.clientId, id);
  if (!stored) throw importNotFound();
  return json(200, stored.record);
};

export const handler = httpHandler(getImportRoute);
