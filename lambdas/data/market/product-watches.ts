import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { batchGet } from '../table/batch.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { productWatchKey } from '../table/keys.js';

/**
 * Which pages a tenant's product watches (data/market/page-watches.ts), kept in the product's
 * partition: what the product registered last, so a change (another product line, a repricer
 * enabled or disabled, a connection added) adds and removes exactly the difference.
 */
const watchedPage = z.object({ connector: z.string(), productLineId: z.string(), repriced: z.boolean() });
export type WatchedPage = z.infer<typeof watchedPage>;

const storedProductWatch = z.object({ pages: z.array(watchedPage) });

/** The pages each product registered, by code; a product that never registered has none. */
export const getProductWatches = async (clientId: string, codes: readonly string[]): Promise<Map<string, WatchedPage[]>> => {
  const keys = codes.map((code) => ({ code, key: productWatchKey(clientId, code) }));
  const items = await batchGet(keys.map(({ key }) => key));
  const byPk = new Map(items.map((item) => [item.pk as string, storedProductWatch.parse(item).pages] as const));
  return new Map(keys.flatMap(({ code, key }) => (byPk.has(key.pk) ? [[code, byPk.get(key.pk)!] as const] : [])));
};

export const putProductWatch = async (clientId: string, code: string, pages: readonly WatchedPage[]): Promise<void> => {
  await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...productWatchKey(clientId, code), entity: 'productWatch', pages } }));
};
