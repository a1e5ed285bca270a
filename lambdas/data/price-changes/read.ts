import type { PriceChangeQuery } from '../../domain/price-change-query.js';
import type { PriceChange } from '../../domain/records.js';
import { productScope } from '../table/keys.js';
import { parsePriceChangeCell, parseProductChangeCell, PRICE_CHANGE_LIST, PRODUCT_PRICE_CHANGE_LIST } from './list.js';
import { readRankedPage } from '../lists/ranked/read-page.js';
import { ReadStats } from '../table/read-stats.js';
import { getRepricer } from '../repricers/read.js';

export interface PriceChangePage {
  readonly total: number;
  readonly priceChanges: PriceChange[];
  readonly stats: ReadStats;
}

export const emptyPriceChangePage = (): PriceChangePage => ({ total: 0, priceChanges: [], stats: new ReadStats() });

/**
 * One page of price changes in three round trips (data/lists/ranked/read-page.ts): from the tenant's
 * list, or, filtered by product or repricer, from that product's list (a repricer's product is
 * read first). Status and reason are cells of both lists, so their filters cost no read of
 * what they leave out. Ids are in creation order, so both sorts read the id order. Undefined when the
 * query names a repricer the client does not have.
 */
export const listPriceChanges = async (clientId: string, query: PriceChangeQuery): Promise<PriceChangePage | undefined> => {
  const order = 'id';
  const window = { order, direction: query.sort.direction, start: query.start, limit: query.limit } as const;
  const matches = ({ status, reason }: { readonly status: string; readonly reason: string }) =>
    (query.reason === undefined || reason === query.reason) && (query.status === undefined || status === query.status);
  let productCode = query.productCode;
  if (query.repricerId !== undefined) {
    const repricer = await getRepricer(clientId, query.repricerId);
    if (!repricer) return undefined;
    if (productCode !== undefined && repricer.record.product.code !== productCode) return emptyPriceChangePage();
    productCode = repricer.record.product.code;
  }
  if (productCode === undefined) {
    const page = await readRankedPage(clientId, PRICE_CHANGE_LIST, { ...window, filter: { cells: (cell) => matches(parsePriceChangeCell(cell)) } });
    return { total: page.total, priceChanges: page.records, stats: page.stats };
  }
  const wanted = query.repricerId === undefined ? undefined : String(query.repricerId);
  const page = await readRankedPage(productScope(clientId, productCode), PRODUCT_PRICE_CHANGE_LIST, {
    ...window,
    filter: {
      cells: (cell) => {
        const place = parseProductChangeCell(cell);
        return (wanted === undefined || place.repricerId === wanted) && matches(place);
      },
    },
  });
  return { total: page.total, priceChanges: page.records, stats: page.stats };
};
