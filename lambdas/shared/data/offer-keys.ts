import { toCents } from '../domain/money.js';
import type { OfferSortField } from '../domain/offer-query.js';
import { OFFER_INDEXES, RANK_INDEXES } from '../../../lib/table-schema.js';
import { offerViewPartition, part, rankDirectoryKey } from './keys.js';
import type { RankOrder, SortStorage } from './rank-order.js';

/**
 * Fixed-width, lowercase base-36 encodings: string order equals numeric order, so each sort
 * order of the API is the byte order of one key. Every sort key ends with the offer's id key,
 * which breaks ties by id and keeps keys unique.
 */
const fixed = (value: number | bigint, width: number): string => {
  const text = value.toString(36);
  if (text.length > width || value < 0) throw new RangeError(`${value} does not fit ${width} base-36 digits`);
  return text.padStart(width, '0');
};

export const ID_WIDTH = 8; // 2.8e12 ids
const COMPETITORS_WIDTH = 4; // up to 1.68e6
const CENTS_WIDTH = 7; // up to 7.8e10 cents
const MILLIS_WIDTH = 9; // epoch milliseconds up to the year 5138

export const idKey = (id: number): string => fixed(id, ID_WIDTH);
export const competitorsPrefix = (totalCompetitors: number): string => fixed(totalCompetitors, COMPETITORS_WIDTH);
/** The histogram prefix of a competitor-count key. */
export const competitorsPrefixOf = (key: string): string => key.slice(0, COMPETITORS_WIDTH);
/** An ISO timestamp as fixed-width epoch milliseconds; a timestamp order's key starts with it. */
export const millisPrefix = (timestamp: string): string => fixed(Date.parse(timestamp), MILLIS_WIDTH);
/** Ids beyond this have no key: no such offer or repricer can exist. */
export const MAX_ID = 36 ** ID_WIDTH - 1;

export interface SortableOffer {
  readonly id: number;
  readonly total_competitors: number;
  readonly offer_price: number;
  readonly updated_at: string;
}

export const sortKeyOf = (offer: SortableOffer, field: OfferSortField): string => {
  const id = idKey(offer.id);
  switch (field) {
    case 'id':
      return id;
    case 'total_competitors':
      return competitorsPrefix(offer.total_competitors) + id;
    case 'offer_price':
      return fixed(toCents(offer.offer_price), CENTS_WIDTH) + id;
    case 'updated_at':
      return millisPrefix(offer.updated_at) + id;
  }
};

export const SORT_STORAGE: Record<OfferSortField, SortStorage> = {
  id: { pageAttribute: 'sk', rankIndex: RANK_INDEXES.rankById.indexName, rankAttribute: RANK_INDEXES.rankById.sortKey },
  total_competitors: {
    pageIndex: OFFER_INDEXES.byCompetitors.indexName,
    pageAttribute: OFFER_INDEXES.byCompetitors.sortKey,
    rankIndex: RANK_INDEXES.rankByCompetitors.indexName,
    rankAttribute: RANK_INDEXES.rankByCompetitors.sortKey,
  },
  offer_price: {
    pageIndex: OFFER_INDEXES.byPrice.indexName,
    pageAttribute: OFFER_INDEXES.byPrice.sortKey,
    rankIndex: RANK_INDEXES.rankByPrice.indexName,
    rankAttribute: RANK_INDEXES.rankByPrice.sortKey,
  },
  updated_at: {
    pageIndex: OFFER_INDEXES.byUpdated.indexName,
    pageAttribute: OFFER_INDEXES.byUpdated.sortKey,
    rankIndex: RANK_INDEXES.rankByUpdated.indexName,
    rankAttribute: RANK_INDEXES.rankByUpdated.sortKey,
  },
};

/** An offer order as the rank-directory code sees it; competitor counts keep a histogram. */
const offerRankOrder = (sort: OfferSortField): RankOrder => ({
  storage: SORT_STORAGE[sort],
  viewPartition: offerViewPartition,
  directoryKey: (clientId, view) => rankDirectoryKey(clientId, view, sort),
  ...(sort === 'total_competitors' ? { histogramPrefix: competitorsPrefixOf } : {}),
});

export const OFFER_RANK_ORDERS: Record<OfferSortField, RankOrder> = {
  id: offerRankOrder('id'),
  total_competitors: offerRankOrder('total_competitors'),
  offer_price: offerRankOrder('offer_price'),
  updated_at: offerRankOrder('updated_at'),
};

/**
 * The views an offer is listed in: every offer is in ALL, the client's own offers also in OWN;
 * each both unfiltered (`*`) and under its competitiveness value (`=<value>`).
 */
export const viewName = (scope: 'own' | 'all', competitiveness: string | undefined): string =>
  `${scope === 'own' ? 'OWN' : 'ALL'}#${competitiveness === undefined ? '*' : `=${part(competitiveness)}`}`;

export const viewsOf = (offer: { seller_id: string; competitiveness: string }, ownSellerId: string): string[] => {
  const scopes: ('own' | 'all')[] = offer.seller_id === ownSellerId ? ['all', 'own'] : ['all'];
  return scopes.flatMap((scope) => [viewName(scope, undefined), viewName(scope, offer.competitiveness)]);
};
