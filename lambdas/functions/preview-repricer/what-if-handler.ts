import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { createRepricerBody, newRepricer } from '../../domain/create-repricer.js';
import { getConnectorType } from '../../data/connections/connectors.js';
import { getProduct } from '../../data/offers/products.js';
import { notFound, unprocessable, validationFailed } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { noQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';
import { previewOf } from './preview.js';

/**
 * POST /v1/repricers/preview: what a repricer with this create body would decide now, and why,
 * without storing it. The body is checked and priced exactly as `POST /v1/repricers` checks
 * and prices it (the same 400, 404 and 422); a repricer already in the product's slot is no
 * conflict here, since nothing is created.
 */
export const previewNewRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  noQueryParameters(event);
  const body = parseOrThrow(createRepricerBody, event.body);
  const product = await getProduct(tenant.clientId, body.product_code);
  if (!product) throw notFound(`No product with code "${body.product_code}" exists for this client.`);
  const built = await newRepricer({ body, product, defaultConnector: tenant.defaultConnector }, getConnectorType);
  if (!built.ok) {
    const { error } = built;
    throw error.kind === 'invalid' ? validationFailed([{ field: error.field, message: error.message }]) : unprocessable(error.message);
  }
  return json(200, await previewOf(tenant.clientId, { ...built.repricer, id: null }));
};

export const handler = httpHandler(previewNewRepricerRoute, { jsonBody: true });
