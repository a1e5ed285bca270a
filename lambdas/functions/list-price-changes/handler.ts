import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { planPriceChangeQuery, priceChangeQueryParameters, repricerPriceChangeQueryParameters } from '../../domain/price-change-query.js';
import { emptyPriceChangePage, listPriceChanges } from '../../data/price-changes/read.js';
import { marketVerdictFor, readMarketState } from '../../data/repricing/market-views.js';
import { getRepricer } from '../../data/repricers/read.js';
import { readWarStates } from '../../data/price-changes/price-wars.js';
import { holdsInForce, marketOf } from '../../domain/repricer-preview.js';
import { priceChangeFeedSettleMs } from '../../config/price-change-feed.js';
import { encodeFeedCursor, isFeedQuery, planPriceChangeFeed, priceChangeFeedParameters } from '../../domain/price-change-feed.js';
import { readPriceChangeFeed } from '../../data/price-changes/feed.js';
import { validationFailed } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { repricerNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { singleQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';
import { now } from '../../config/clock.js';

/**
 * GET /v1/price-changes and GET /v1/repricers/{id}/price-changes: one page of the client's
 * repricing decisions with exact `meta`. A repricer that is not the client's is a 404.
 */
export const listPriceChangesRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const inPath = event.pathParameters?.id !== undefined;
  const id = inPath ? idParameter(event) : undefined;
  if (inPath && id === undefined) throw repricerNotFound();
  if (!inPath && isFeedQuery(singleQueryParameters(event))) return feedPage(tenant.clientId, event);
  const query = inPath
    ? planPriceChangeQuery(parseOrThrow(repricerPriceChangeQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.'), id)
    : planPriceChangeQuery(parseOrThrow(priceChangeQueryParameters, singleQueryParameters(event), 'The query parameters are not valid.'));
  const found = await listPriceChanges(tenant.clientId, query);
  if (!found && inPath) throw repricerNotFound();
  const page = found ?? emptyPriceChangePage();
  const body = { meta: { total: page.total, limit: query.limit, start: query.start }, price_changes: page.priceChanges };
  if (id === undefined) return json(200, body);
  // One repricer's list also says what market it decides from: why nothing was decided, when nothing was.
  const repricer = await getRepricer(tenant.clientId, id);
  if (!repricer) throw repricerNotFound();
  const connector = repricer.record.connector_type.uid;
  const code = repricer.record.product.code;
  const [market, wars] = await Promise.all([readMarketState(tenant.clientId, code, connector), readWarStates(tenant.clientId, code, id)]);
  // ... and which of its offers the price-war guard holds, and until when.
  return json(200, { ...body, market: marketOf(await marketVerdictFor(tenant.clientId, connector, market)), holds: holdsInForce(wars, now()) });
};

/**
 * GET /v1/price-changes?updated_since=... or ?cursor=...: the changes in the order of their last
 * update, from where the client stopped (lambdas/domain/price-change-feed.ts); a cursor that is
 * not one this client was given is a 400.
 */
const feedPage = async (clientId: string, event: APIGatewayProxyEvent) => {
  const params = parseOrThrow(priceChangeFeedParameters, singleQueryParameters(event), 'The query parameters are not valid.');
  const planned = planPriceChangeFeed(clientId, params, now(), priceChangeFeedSettleMs());
  if (!planned.ok) throw validationFailed([{ field: 'cursor', message: 'Not a cursor this service gave this client: start again from updated_since.' }]);
  const page = await readPriceChangeFeed(clientId, planned.query);
  return json(200, {
    meta: { limit: planned.query.limit, next_cursor: encodeFeedCursor(clientId, page.position), has_more: page.more },
    price_changes: page.priceChanges,
  });
};

export const handler = httpHandler(listPriceChangesRoute);
