import type { PriceChange } from '../../domain/records.js';
import { priceChangePartition, priceChangesOfOfferPrefix } from '../table/keys.js';
import { queryPages } from '../table/query-pages.js';
import { ReadStats } from '../table/read-stats.js';
import { storedPriceChange } from './list.js';

/**
 * The repricer's price changes for one offer created at or after `from`: its decisions for the
 * offer are numbered in the order they were made, so they are read newest first and the read
 * stops at the first one older than `from`. What is read grows with the decisions since `from`.
 */
export const readPriceChangesSince = async (
  clientId: string,
  code: string,
  repricerId: number,
  offerId: string,
  from: number,
  stats = new ReadStats(),
): Promise<Pick<PriceChange, 'status' | 'reason' | 'created_at'>[]> => {
  const records = (items: readonly Record<string, unknown>[]) => items.flatMap((item) => storedPriceChange.safeParse(item).data?.record ?? []);
  const isOlder = (record: PriceChange) => Date.parse(record.created_at) < from;
  const items = await queryPages(
    stats,
    {
      condition: 'pk = :pk AND begins_with(sk, :prefix)',
      values: { ':pk': priceChangePartition(clientId, code), ':prefix': priceChangesOfOfferPrefix(repricerId, offerId) },
      forward: false,
    },
    (page) => records(page).some(isOlder),
  );
  return records(items)
    .filter((record) => !isOlder(record))
    .map(({ status, reason, created_at }) => ({ status, reason, created_at }));
};
