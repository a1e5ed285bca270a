import type { OfferQuery } from '../../domain/offer-query.js';
import type { Offer } from '../../domain/records.js';
import { batchGet } from '../table/batch.js';
import { cellCompetitiveness, cellScope, OFFER_LIST } from './list.js';
import { listingKey, recordOfListing } from '../lists/ranked/listings.js';
import { readNodes } from '../lists/ranked/node-store.js';
import { readRankedPage } from '../lists/ranked/read-page.js';
import type { ReadStats } from '../table/read-stats.js';
import { MAX_ID } from '../table/sort-keys.js';

export interface OfferPage {
  readonly total: number;
  readonly offers: Offer[];
  readonly stats: ReadStats;
}

/** The cells a query selects: own offers only unless others are included, and one competitiveness if given. */
const cellsOf = (query: Pick<OfferQuery, 'scope' | 'competitiveness'>) => (cell: string) =>
  (query.scope === 'all' || cellScope(cell) === 'own') && (query.competitiveness === undefined || cellCompetitiveness(cell) === query.competitiveness);

/** One page of offers in three round trips, whatever the tenant's size or `start` (data/lists/ranked/read-page.ts). */
export const listOffers = async (clientId: string, query: OfferQuery): Promise<OfferPage> => {
  const page = await readRankedPage(clientId, OFFER_LIST, {
    order: query.sort.field,
    direction: query.sort.direction,
    filter: { cells: cellsOf(query), ...(query.minCompetitors === undefined ? {} : { gte: query.minCompetitors }) },
    start: query.start,
    limit: query.limit,
  });
  return { total: page.total, offers: page.records, stats: page.stats };
};

/** One offer by its numeric id: its listing in whichever cell holds it (the cells are those the id order counts). */
export const getOffer = async (clientId: string, id: number): Promise<Offer | undefined> => {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return undefined;
  const chunks = await readNodes({ clientId, tag: OFFER_LIST.tag, order: 'id', level: 'c' }, {}, { consistent: false });
  const cells = [...new Set(chunks.flatMap((chunk) => [...chunk.counts].filter(([, n]) => n > 0).map(([cell]) => cell)))];
  const [item] = await batchGet(
    cells.map((cell) => listingKey(clientId, OFFER_LIST, cell, id)),
    false,
  );
  return item ? recordOfListing(OFFER_LIST, item) : undefined;
};
