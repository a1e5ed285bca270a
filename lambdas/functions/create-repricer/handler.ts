import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { createRepricerBody, newRepricer, type CreateRepricerError } from '../../domain/create-repricer.js';
import { getConnectorType } from '../../data/connections/connectors.js';
import { getProduct } from '../../data/offers/products.js';
import { createRepricer } from '../../data/repricers/write.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { idempotentRequests } from '../../http/idempotency.js';
import { etagOf } from '../../http/preconditions.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';

/** POST /v1/repricers/: 201 with the full record, 409 when the (product, connector) slot is taken. */
export const createRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const body = parseOrThrow(createRepricerBody, event.body);
  const product = await getProduct(tenant.clientId, body.product_code);
  if (!product) throw notFound(`No product with code "${body.product_code}" exists for this client.`);

  const built = await newRepricer({ body, product, defaultConnector: tenant.defaultConnector }, getConnectorType);
  if (!built.ok) throw problemOf(built.error);

  const result = await createRepricer(tenant.clientId, built.repricer);
  if (!result.created) {
    throw conflict(`A repricer for this product and connector already exists: ${result.existingId}.`, { existing_id: result.existingId });
  }
  return json(201, result.repricer, { Location: `/v1/repricers/${result.repricer.id}`, ETag: etagOf(result.version) });
};

const problemOf = (error: CreateRepricerError) =>
  error.kind === 'invalid' ? validationFailed([{ field: error.field, message: error.message }]) : unprocessable(error.message);

export const handler = httpHandler(createRepricerRoute, { jsonBody: true }).use(idempotentRequests());
