import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { chooseConnector, createRepricerBody } from '../shared/domain/create-repricer.js';
import { computePricing } from '../shared/domain/pricing.js';
import { getConnectorType } from '../shared/data/connectors.js';
import { getProduct } from '../shared/data/products.js';
import { createRepricer } from '../shared/data/repricers.js';
import { conflict, notFound, unprocessable, validationFailed } from '../shared/http/errors.js';
import { httpHandler } from '../shared/http/handler.js';
import { idempotentRequests } from '../shared/http/idempotency.js';
import { etagOf } from '../shared/http/preconditions.js';
import { json } from '../shared/http/responses.js';
import { parseOrThrow } from '../shared/http/validation.js';

/** POST /v1/repricers/: 201 with the full record, 409 when the (product, connector) slot is taken. */
export const createRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const body = parseOrThrow(createRepricerBody, event.body);
  const product = await getProduct(tenant.clientId, body.product_code);
  if (!product) throw notFound(`No product with code "${body.product_code}" exists for this client.`);

  const connector = chooseConnector(product.fee_estimates, body.connector, tenant.defaultConnector);
  if (!connector.ok) throw validationFailed([{ field: 'connector', message: connector.message }]);
  const connectorType = await getConnectorType(connector.uid);
  if (!connectorType) throw unprocessable(`The connector "${connector.uid}" is not a known connector type.`);

  const pricing = computePricing({
    preferredPrice: body.preferred_price,
    preferredProfit: body.preferred_profit,
    minProfit: body.min_profit,
    soh: product.soh,
    feeEstimates: product.fee_estimates,
    connectorUid: connector.uid,
  });
  if (!pricing.ok) throw unprocessable(pricing.reason);

  const result = await createRepricer(tenant.clientId, {
    buybox_approach: body.buybox_approach,
    repricer_approach: body.repricer_approach,
    enabled: body.enabled,
    preferred_price: body.preferred_price,
    preferred_profit: body.preferred_profit,
    min_price: pricing.value.minPrice,
    min_profit: pricing.value.minProfit,
    fixed_fulfilment_fee: pricing.value.fixedFulfilmentFee,
    connector_type: connectorType,
    product,
  });
  if (!result.created) {
    throw conflict(`A repricer for this product and connector already exists: ${result.existingId}.`, { existing_id: result.existingId });
  }
  return json(201, result.repricer, { Location: `/v1/repricers/${result.repricer.id}`, ETag: etagOf(result.version) });
};

export const handler = httpHandler(createRepricerRoute, { jsonBody: true }).use(idempotentRequests('CreateRepricer'));
