import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { parsePreviewOverrides } from '../../domain/preview-overrides.js';
import { applyRepricerPatch } from '../../domain/update-repricer.js';
import { readProductForRepricing } from '../../data/repricing/inputs.js';
import { getRepricer } from '../../data/repricers/read.js';
import { unprocessable, validationFailed } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { repricerNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { singleQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { previewOf } from './preview.js';

/**
 * GET /v1/repricers/{id}/preview: what the repricer would decide now, and why; with query
 * overrides (any preference of a create body), what it would decide with those, priced as a
 * PATCH would price them, from the product as it is now. It writes nothing.
 */
export const previewRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const parsed = parsePreviewOverrides(singleQueryParameters(event));
  if (!parsed.ok) throw validationFailed(parsed.errors, 'The query parameters are not valid.');
  const id = idParameter(event);
  const stored = id === undefined ? undefined : await getRepricer(tenant.clientId, id);
  if (!stored) throw repricerNotFound();
  const { record } = stored;
  if (Object.keys(parsed.overrides).length === 0) return json(200, await previewOf(tenant.clientId, record));
  // The partition read once: its product prices the overrides, and it is the market the preview decides from.
  const partition = (await readProductForRepricing(tenant.clientId, record.product.code)) ?? null;
  const priced = applyRepricerPatch(record, parsed.overrides, partition?.product ?? record.product, record.updated_at);
  if (!priced.ok) throw unprocessable(priced.reason);
  return json(200, await previewOf(tenant.clientId, priced.record, partition));
};

export const handler = httpHandler(previewRepricerRoute);
