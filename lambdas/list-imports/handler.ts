import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { importQueryParameters, planImportQuery } from '../shared/domain/import-jobs.js';
import { listImportJobs } from '../shared/data/imports.js';
import { httpHandler } from '../shared/http/handler.js';
import { singleQueryParameters } from '../shared/http/query.js';
import { json } from '../shared/http/responses.js';
import { parseOrThrow } from '../shared/http/validation.js';

/** GET /v1/imports: one page of the client's import jobs with exact `meta`. */
export const listImportsRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const query = planImportQuery(parseOrThrow(importQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.'));
  const page = await listImportJobs(tenant.clientId, query);
  return json(200, { meta: { total: page.total, limit: query.limit, start: query.start }, imports: page.imports });
};

export const handler = httpHandler(listImportsRoute);
