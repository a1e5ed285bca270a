import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { productCode } from '../../domain/records.js';
import { productDetailOf } from '../../domain/product-detail.js';
import { listConnections } from '../../data/connections/connections.js';
import { readPremiums } from '../../data/repricing/market-views.js';
import { getProduct } from '../../data/offers/products.js';
import { httpHandler } from '../../http/handler.js';
import { productNotFound } from '../../http/not-found.js';
import { pathParameter } from '../../http/path.js';
import { json } from '../../http/responses.js';

/**
 * GET /v1/products/{code}: one of the client's products, with its in-stock premium on each
 * connector; a code that cannot exist is a 404 too.
 */
export const getProductRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const code = productCode.safeParse(pathParameter(event, 'code'));
  const product = code.success ? await getProduct(tenant.clientId, code.data) : undefined;
  if (!product) throw productNotFound();
  const [premiums, connections] = await Promise.all([readPremiums(tenant.clientId, product.code), listConnections(tenant.clientId)]);
  return json(
    200,
    productDetailOf(
      product,
      premiums,
      connections.map((connection) => connection.record.connector),
    ),
  );
};

export const handler = httpHandler(getProductRoute);
