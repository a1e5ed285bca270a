import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { applyRepricerPatch, updateRepricerBody } from '../shared/domain/update-repricer.js';
import { getProduct } from '../shared/data/products.js';
import { replaceRepricer } from '../shared/data/repricers.js';
import { getRepricer } from '../shared/data/repricers-read.js';
import { conflict, unprocessable } from '../shared/http/errors.js';
import { httpHandler } from '../shared/http/handler.js';
import { repricerNotFound } from '../shared/http/not-found.js';
import { idParameter } from '../shared/http/path.js';
import { etagOf, ifMatchOf, requireMatch } from '../shared/http/preconditions.js';
import { json } from '../shared/http/responses.js';
import { parseOrThrow } from '../shared/http/validation.js';

/** Re-reads after losing a race, this many times in all; with If-Match the second read answers 412. */
const MAX_ATTEMPTS = 5;

/**
 * PATCH /v1/repricers/{id}: changes preferences and recomputes the computed fields from the
 * product as it is now (its stored copy when the product no longer exists). The write is
 * conditioned on the version read, so two concurrent PATCHes cannot both win.
 */
export const updateRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  if (id === undefined) throw repricerNotFound();
  const patch = parseOrThrow(updateRepricerBody, event.body);
  const ifMatch = ifMatchOf(event);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await getRepricer(tenant.clientId, id);
    if (!current) throw repricerNotFound();
    requireMatch(ifMatch, current.version);
    const product = (await getProduct(tenant.clientId, current.record.product.code)) ?? current.record.product;
    const next = applyRepricerPatch(current.record, patch, product, new Date().toISOString());
    if (!next.ok) throw unprocessable(next.reason);
    const saved = await replaceRepricer(tenant.clientId, current, next.record);
    if (saved) return json(200, saved.record, { ETag: etagOf(saved.version) });
  }
  throw conflict('The repricer kept changing while this update was applied; retry.');
};

export const handler = httpHandler(updateRepricerRoute, { jsonBody: true });
