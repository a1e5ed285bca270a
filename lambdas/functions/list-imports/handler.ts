import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { importQueryParameters, planImportQuery } from '../../domain/import-jobs.js';
import { listImportJobs } from '../../data/imports/imports.js';
import { httpHandler } from '../../http/handler.js';
import { singleQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';

/** GET /v1/imports: one page of the client's import jobs with exact `meta`. */
export const listImportsRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const query = planImportQuery(parseOrThrow(importQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.'));
  const page = await listImportJobs(tenant.clientId, query);
  return json(200, { meta: { total: page.total, limit: query.limit, start: query.start }, imports: page.imports });
};

export const handler = httpHandler(listImportsRoute);
