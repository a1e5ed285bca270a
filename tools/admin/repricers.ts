import type * as z from 'zod';
import { getConnectorType } from '../../lambdas/data/connections/connectors.js';
import { getProduct } from '../../lambdas/data/offers/products.js';
import { createRepricer, type CreateRepricerResult } from '../../lambdas/data/repricers/write.js';
import { listRepricers } from '../../lambdas/data/repricers/read.js';
import { createRepricerBody, newRepricer, type CreateRepricerBody } from '../../lambdas/domain/create-repricer.js';
import { planRepricerQuery, repricerQueryParameters } from '../../lambdas/domain/repricer-query.js';

/**
 * Repricers created outside the API (the demo data, the benchmark) the way `POST /v1/repricers/`
 * creates them: the body's rules, the same use case (`newRepricer`: connector, computed fields),
 * then the same data-layer write (repricer, slot and listing in one transaction). What the API
 * answers with a problem is thrown here as an Error.
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
  const built = await newRepricer({ body, product, defaultConnector: owner.defaultConnector }, getConnectorType);
  if (!built.ok) throw new Error(built.error.message);
  return createRepricer(owner.clientId, built.repricer);
};

/** Whether the client has a repricer for the product (on any connector): read from the product's slots. */
export const hasRepricerFor = async (clientId: string, productCode: string): Promise<boolean> => {
  const page = await listRepricers(clientId, planRepricerQuery(repricerQueryParameters.parse({ product_code: productCode, _limit: '1' })));
  return page.total > 0;
};
