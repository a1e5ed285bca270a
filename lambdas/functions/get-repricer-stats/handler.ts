import type { APIGatewayProxyEvent } from 'aws-lambda';
import { tenantOf } from '../../auth/tenant.js';
import { repricerStatsOf, statsQueryParameters, statsWindowOf } from '../../domain/repricer-stats.js';
import { readOfferTimeline } from '../../data/offers/states.js';
import { readPriceChangesSince } from '../../data/price-changes/history.js';
import { readProductForRepricing } from '../../data/repricing/inputs.js';
import { getRepricer } from '../../data/repricers/read.js';
import { validationFailed } from '../../http/errors.js';
import { httpHandler } from '../../http/handler.js';
import { repricerNotFound } from '../../http/not-found.js';
import { idParameter } from '../../http/path.js';
import { singleQueryParameters } from '../../http/query.js';
import { json } from '../../http/responses.js';
import { parseOrThrow } from '../../http/validation.js';
import { now } from '../../config/clock.js';

const QUERY_PROBLEM = 'The query parameters are not valid.';

/**
 * GET /v1/repricers/{id}/stats?from=&to=: the repricer's outcomes over the range, from the
 * recorded states of its own offers and its price changes (domain/repricer-stats.ts). Its own
 * offers are the ones of its product and connector now, and any it has decided for.
 */
export const getRepricerStatsRoute = async (event: APIGatewayProxyEvent) => {
  const tenant = tenantOf(event);
  const query = parseOrThrow(statsQueryParameters, singleQueryParameters(event), QUERY_PROBLEM);
  const window = statsWindowOf(query, now());
  if (!window.ok) throw validationFailed([{ field: window.field, message: window.message }], QUERY_PROBLEM);
  const id = idParameter(event);
  const stored = id === undefined ? undefined : await getRepricer(tenant.clientId, id);
  if (!stored) throw repricerNotFound();
  const { record } = stored;
  const code = record.product.code;
  const partition = await readProductForRepricing(tenant.clientId, code);
  const offerIds = new Set([
    ...(partition?.offers ?? [])
      .filter((offer) => offer.scope === 'own' && offer.connector === record.connector_type.uid)
      .map((offer) => offer.fields.offer_id),
    ...[...(partition?.decisions.values() ?? [])].filter((state) => state.repricerId === record.id).map((state) => state.offerId),
  ]);
  const perOffer = await Promise.all(
    [...offerIds].map(async (offerId) => {
      const [timeline, changes] = await Promise.all([
        readOfferTimeline(tenant.clientId, code, offerId, window.window),
        readPriceChangesSince(tenant.clientId, code, record.id, offerId, window.window.from),
      ]);
      return { timeline, changes };
    }),
  );
  return json(
    200,
    repricerStatsOf({
      repricerId: record.id,
      minPrice: record.min_price,
      window: window.window,
      timelines: perOffer.map(({ timeline }) => timeline),
      priceChanges: perOffer.flatMap(({ changes }) => changes),
    }),
  );
};

export const handler = httpHandler(getRepricerStatsRoute);
