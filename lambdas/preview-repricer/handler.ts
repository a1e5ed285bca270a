import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../shared/auth/tenant.js';
import { previewRepricer } from '../shared/domain/repricer-preview.js';
import { marketVerdictFor } from '../shared/data/market-state.js';
import { warStateId } from '../shared/data/price-wars.js';
import { decisionId, engineContextOf, engineOffersOf, priceStepOf, readProductForRepricing } from '../shared/data/repricing.js';
import { getRepricer } from '../shared/data/repricers-read.js';
import { httpHandler } from '../shared/http/handler.js';
import { repricerNotFound } from '../shared/http/not-found.js';
import { idParameter } from '../shared/http/path.js';
import { json } from '../shared/http/responses.js';

/**
 * GET /v1/repricers/{id}/preview: what the repricer would decide now, from the same product
 * partition and price step the evaluator reads, and why. It writes nothing.
 */
export const previewRepricerRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const id = idParameter(event);
  const stored = id === undefined ? undefined : await getRepricer(tenant.clientId, id);
  if (!stored) throw repricerNotFound();
  const { record } = stored;
  const connector = record.connector_type.uid;
  const [product, step] = await Promise.all([readProductForRepricing(tenant.clientId, record.product.code), priceStepOf(connector)]);
  // No product item (it was removed): no offers to reprice and no competitor to meet.
  const offers = product ? engineOffersOf(product) : [];
  const lastDecided = (offerId: string) => product?.decisions.get(decisionId(record.id, offerId))?.lastPrice;
  // The evaluator's own rule: with a connection, only a known market decides (domain/market-state.ts).
  const verdict = await marketVerdictFor(tenant.clientId, connector, product?.markets.get(connector));
  // The price-war guard's state, read with the partition: an offer it holds would get no decision.
  const wars = { stateOf: (offerId: string) => product?.wars.get(warStateId(record.id, offerId)), nowMs: Date.now() };
  return json(200, previewRepricer({ ...record, connector }, offers, step, lastDecided, verdict, engineContextOf(product, connector), wars));
};

export const handler = httpHandler(previewRepricerRoute);
