import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { TTL_ATTRIBUTE } from '../../config/table-schema.js';
import { directoryValues } from '../table/directory.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { CONNECTIONS_DIRECTORY, hostHoldKey, productsDirectory } from '../table/keys.js';
import { getStoredProducts } from '../offers/products.js';
import { listRepricers } from '../repricers/read.js';
import { MAX_LIMIT } from '../../domain/list-parameters.js';

/**
 * What the market loop reads to know what to watch (docs/market-sync.md): every connection's
 * uid, a tenant's product codes and the products its enabled repricers price, the product line
 * ids pages are read by, and the storefront hosts' holds. Reads only, except a hold, which is
 * written when a host refuses a read: a sync that finds nothing new writes nothing.
 */
/** The uid of every connection of every tenant (the schedule's fan-out). */
export const listConnectionUids = (): Promise<string[]> => directoryValues(CONNECTIONS_DIRECTORY);

/** Every product code of a tenant. */
export const listProductCodes = (clientId: string): Promise<string[]> => directoryValues(productsDirectory(clientId));

/** The codes of the products an enabled repricer of this connector prices: the frequent tier. */
export const listRepricedCodes = async (clientId: string, connector: string): Promise<Set<string>> => {
  const codes = new Set<string>();
  for (let start = 0; ; start += MAX_LIMIT) {
    const page = await listRepricers(clientId, { enabled: true, sort: { field: 'id', direction: 'ASC' }, limit: MAX_LIMIT, start });
    for (const repricer of page.repricers) if (repricer.connector_type.uid === connector) codes.add(repricer.product.code);
    if (page.repricers.length < MAX_LIMIT || start + MAX_LIMIT >= page.total) return codes;
  }
};

/** The product line id of each product that has one (a product the sync created, or an import kept). */
export const productLineIdsOf = async (clientId: string, codes: readonly string[]): Promise<Map<string, string>> => {
  const stored = await getStoredProducts(clientId, codes);
  const lines = new Map<string, string>();
  for (const [code, product] of stored) if (product.productLineId !== undefined) lines.set(code, product.productLineId);
  return lines;
};

const hostHold = z.object({ holdUntil: z.int().nonnegative(), refusals: z.int().nonnegative() });
export type HostHold = z.infer<typeof hostHold>;

/** The hold a host is under, if any: until when, and how many refusals in a row led to it. */
export const getHostHold = async (host: string): Promise<HostHold | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: hostHoldKey(host), ConsistentRead: true }));
  return result.Item ? hostHold.parse(result.Item) : undefined;
};

/** Records a hold; expires by TTL a day after it ends, so a quiet host leaves nothing behind. */
export const putHostHold = async (host: string, hold: HostHold): Promise<void> => {
  await documentClient.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...hostHoldKey(host), entity: 'hostHold', ...hold, [TTL_ATTRIBUTE]: Math.ceil(hold.holdUntil / 1000) + 24 * 3600 },
    }),
  );
};
