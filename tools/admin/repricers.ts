import type * as z from 'zod';
import { getConnectorType } from '../../lambdas/shared/data/connectors.js';
import { getProduct } from '../../lambdas/shared/data/products.js';
import { createRepricer, type CreateRepricerResult } from '../../lambdas/shared/data/repricers.js';
import { listRepricers } from '../../lambdas/shared/data/repricers-read.js';
import { chooseConnector, createRepricerBody, type CreateRepricerBody } from '../../lambdas/shared/domain/create-repricer.js';
import { computePricing } from '../../lambdas/shared/domain/pricing.js';
import { planRepricerQuery, repricerQueryParameters } from '../../lambdas/shared/domain/repricer-query.js';

/**
 * Repricers created outside the API (the demo data, the benchmark) the way `POST /v1/repricers/`
 * creates them: the body's rules, the connector chosen from the product's fee estimates, the
 * computed fields, then the same data-layer write (repricer, slot and listing in one
 * transaction). What the API answers with a problem is thrown here as an Error.
 */
export interface RepricerOwner {
  readonly clientId: string;
  readonly defaultConnector: string;
}

export type RepricerRequest = z.input<typeof createRepricerBody>;

export const createRepricerFor = async (owner: RepricerOwner, request: RepricerRequest): Promise<CreateRepricerResult> => {
  const body: CreateRepricerBody = createRepricerBody.parse(request);
  const product = await getProduct(owner.clientId, body.product_code);
  if (!product) throw new Error(`No product with code "${body.product_code}"`);
  const connector = chooseConnector(product.fee_estimates, body.connector, owner.defaultConnector);
  if (!connector.ok) throw new Error(connector.message);
  const connectorType = await getConnectorType(connector.uid);
  if (!connectorType) throw new Error(`The connector "${connector.uid}" is not a known connector type`);
  const pricing = computePricing({
    preferredPrice: body.preferred_price,
    preferredProfit: body.preferred_profit,
    minProfit: body.min_profit,
    soh: product.soh,
    feeEstimates: product.fee_estimates,
    connectorUid: connector.uid,
  });
  if (!pricing.ok) throw new Error(pricing.reason);
  return createRepricer(owner.clientId, {
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
};

/** Whether the client has a repricer for the product (on any connector): read from the product's slots. */
export const hasRepricerFor = async (clientId: string, productCode: string): Promise<boolean> => {
  const page = await listRepricers(clientId, planRepricerQuery(repricerQueryParameters.parse({ product_code: productCode, _limit: '1' })));
  return page.total > 0;
};
