import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { applyRepricerPatch, updateRepricerBody } from '../../domain/update-repricer.js';
import { getProduct } from '../../data/offers/products.js';
import { updateRepricer } from '../../data/repricers/write.js';
import { conflict, unprocessable, validationFailed } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { repricerNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { etagOf, ifMatchOf, requireMatch } from '../../http/preconditions.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';
import { nowIso } from '../../config/clock.js';

/**
 * PATCH /v1/repricers/{id}: changes preferences and recomputes the computed fields from the
 * product as it is now (its stored copy when the product no longer exists). The write is
 * conditioned on the version read, so two concurrent PATCHes cannot both win: with If-Match
 * the loser gets 412, without it the data layer re-reads and applies the patch again.
 */
export const updateRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  if (id === undefined) throw repricerNotFound();
  const patch = parseOrThrow(updateRepricerBody, event.body);
  const ifMatch = ifMatchOf(event);
  const outcome = await updateRepricer(tenant.clientId, id, async (current) => {
    requireMatch(ifMatch, current.version);
    const product = (await getProduct(tenant.clientId, current.record.product.code)) ?? current.record.product;
    const next = applyRepricerPatch(current.record, patch, product, nowIso());
    // A field of the request at fault (a cost_based repricer without its unit cost): 400 naming it.
    if (!next.ok) throw next.field ? validationFailed([{ field: next.field, message: next.reason }]) : unprocessable(next.reason);
    return next.record;
  });
  if (outcome.kind === 'missing') throw repricerNotFound();
  if (outcome.kind === 'contended') throw conflict('The repricer kept changing while this update was applied; retry.');
  return json(200, outcome.value.record, { ETag: etagOf(outcome.value.version) });
};

export const handler = httpHandler(updateRepricerRoute, { jsonBody: true });
