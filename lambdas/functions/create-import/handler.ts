import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { checkImportBody, createImportParameters, invalidJobCounters, MAX_IMPORT_BODY_BYTES } from '../../domain/import-jobs.js';
import { createImportJob, reserveImportId, storeImportBody } from '../../data/imports/imports.js';
import { HttpProblem, validationFailed } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { idempotentRequests } from '../../http/idempotency.js';
import { IMPORT_TOO_LARGE, NOT_NDJSON } from '../../http/import-problems.js';
import { singleQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';

const NDJSON_MEDIA_TYPE = /^application\/x-ndjson\s*($|;)/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * POST /v1/imports?import_type=...: every line is validated now, with the CLI's schemas. A
 * valid body is stored and the job created `pending` (its creation on the table's stream
 * queues it for the worker); a body with bad lines writes nothing and creates the job `failed`
 * with each bad line in `errors`. Either way the answer is 202 with the job: a client reads one
 * outcome, the job, whether validation failed now or a reference check fails in the worker.
 */
export const createImportRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const { import_type } = parseOrThrow(createImportParameters, singleQueryParameters(event), 'The query parameters are not valid.');
  if (!NDJSON_MEDIA_TYPE.test(event.headers?.['content-type'] ?? '')) throw new HttpProblem(NOT_NDJSON);
  const raw = event.body == null ? Buffer.alloc(0) : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (raw.byteLength === 0) throw validationFailed([{ field: 'body', message: 'The body holds no line: send one JSON object a line.' }]);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw validationFailed([{ field: 'body', message: 'The body is not UTF-8 text.' }]);
  }

  const checked = checkImportBody(import_type, text);
  if (!checked.ok) throw validationFailed([{ field: 'body', message: checked.message }]);
  const { total, problems, invalidLines } = checked;
  const { id, at } = await reserveImportId();
  const owner = { sellerId: tenant.sellerId, defaultConnector: tenant.defaultConnector };
  const common = { id, at, importType: import_type, trigger: 'public_api' as const, total, owner };
  const job =
    problems.length > 0
      ? await createImportJob(tenant.clientId, { ...common, status: 'failed', problems: invalidJobCounters(total, problems, invalidLines) })
      : await createImportJob(tenant.clientId, { ...common, status: 'pending', bodyChunks: await storeImportBody(tenant.clientId, id, raw, at) });
  return json(202, job, { Location: `/v1/imports/${id}` });
};

// A retried POST with the same Idempotency-Key and body answers the first job again instead of creating a second.
export const handler = httpHandler(createImportRoute, { rawBody: { maxBytes: MAX_IMPORT_BODY_BYTES, tooLarge: IMPORT_TOO_LARGE } }).use(idempotentRequests());
