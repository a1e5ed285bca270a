import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { OfferQuery } from '../domain/offer-query.js';
import type { Offer } from '../domain/records.js';
import { documentClient, tableName } from './dynamo.js';
import { offerViewPartition } from './keys.js';
import { competitorsPrefix, idKey, MAX_ID, OFFER_RANK_ORDERS, viewName } from './offer-keys.js';
import { toOffer } from './offer-items.js';
import { readRankedPage } from './ranked-page.js';
import type { ReadStats } from './read-stats.js';

export interface OfferPage {
  readonly total: number;
  readonly offers: Offer[];
  readonly stats: ReadStats;
}

/**
 * One page of offers in at most three round trips, whatever the tenant's size or `start`
 * (see data/ranked-page.ts); `total_competitors_gte` skips the histogram's lower counts.
 */
export const listOffers = async (clientId: string, query: OfferQuery): Promise<OfferPage> => {
  const page = await readRankedPage(clientId, {
    view: viewName(query.scope, query.competitiveness),
    order: OFFER_RANK_ORDERS[query.sort.field],
    direction: query.sort.direction,
    limit: query.limit,
    start: query.start,
    ...(query.minCompetitors === undefined ? {} : { fromPrefix: competitorsPrefix(query.minCompetitors) }),
  });
  return { total: page.total, offers: page.items.map(toOffer), stats: page.stats };
};

/** One offer by its numeric id: every offer is in the unfiltered ALL view. */
export const getOffer = async (clientId: string, id: number): Promise<Offer | undefined> => {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return undefined;
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: { pk: offerViewPartition(clientId, viewName('all', undefined)), sk: idKey(id) } }),
  );
  return result.Item ? toOffer(result.Item) : undefined;
};
