/**
 * Helpers for the repricing tests: the price change record as the API answers it, and the
 * canonical price changes of a client read straight from the table (Scans are allowed here:
 * tests inspect the whole table, request paths never do), the oracle the lists are checked on.
 */
import { DeleteCommand, PutCommand, DynamoDBDocumentClient, ScanCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { createLocalDynamoClient } from '../../tools/local/dynamodb-local.js';
import { storedPriceChange } from '../../lambdas/data/price-changes/list.js';
import type { ApiResponse, TestApi } from './local-api.js';

export interface PriceChange {
  readonly id: number;
  readonly uid: string;
  readonly repricer_id: number;
  readonly offer_id: string;
  readonly product_code: string;
  readonly connector: string;
  readonly old_price: number;
  readonly new_price: number;
  readonly reason: 'undercut' | 'floor' | 'ceiling' | 'no_competition' | 'match' | 'in_stock_premium';
  readonly lowest_competitor_price: number | null;
  readonly competitor_offer_id: string | null;
  readonly status: 'suggested' | 'pending' | 'sent' | 'applied' | 'failed' | 'superseded';
  readonly status_reason: string | null;
  readonly sent_price: number | null;
  readonly sent_at: string | null;
  readonly applied_at: string | null;
  /** The explanation of the decision (docs/repricing.md); its shape is checked against the OpenAPI document. */
  readonly explanation: Record<string, unknown> | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface PriceChangePage {
  readonly meta: { readonly total: number; readonly limit: number; readonly start: number };
  readonly price_changes: PriceChange[];
}

type Item = Record<string, NativeAttributeValue>;

export interface StoredPriceChange {
  readonly pk: string;
  readonly sk: string;
  readonly record: PriceChange;
  readonly expiresAt: number;
}

const documentClientFor = () => {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set');
  const client = createLocalDynamoClient(endpoint);
  return { client, doc: DynamoDBDocumentClient.from(client) };
};

/** Every canonical price change of a client, by id, its record as the service reads it. */
export const canonicalPriceChanges = async (tableName: string, clientId: string): Promise<StoredPriceChange[]> => {
  const { client, doc } = documentClientFor();
  try {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await doc.send(
        new ScanCommand({
          TableName: tableName,
          ConsistentRead: true,
          FilterExpression: 'begins_with(pk, :prefix) AND entity = :entity',
          ExpressionAttributeValues: { ':prefix': `T#${clientId}#PC#`, ':entity': 'priceChange' },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    // The record as the service reads it: the explanation, kept compressed beside it, back in it.
    const read = items.map((item) => ({ ...item, record: storedPriceChange.parse(item).record }) as unknown as StoredPriceChange);
    return read.sort((a, b) => a.record.id - b.record.id);
  } finally {
    client.destroy();
  }
};

/** Deletes a canonical item, as DynamoDB's TTL would. */
/** Puts an item back as it was (e.g. one a test deleted to see it unlisted). */
export const putItem = async (tableName: string, item: Record<string, unknown>): Promise<void> => {
  const { client, doc } = documentClientFor();
  try {
    await doc.send(new PutCommand({ TableName: tableName, Item: item }));
  } finally {
    client.destroy();
  }
};

export const deleteItem = async (tableName: string, key: { pk: string; sk: string }): Promise<void> => {
  const { client, doc } = documentClientFor();
  try {
    await doc.send(new DeleteCommand({ TableName: tableName, Key: key }));
  } finally {
    client.destroy();
  }
};

/** Every page of a price-change list, `_limit` at a time, checked for consistent meta. */
export const allPages = async (api: TestApi, auth: readonly [string, string], path: string, limit = 100): Promise<PriceChange[]> => {
  const found: PriceChange[] = [];
  const separator = path.includes('?') ? '&' : '?';
  for (let start = 0; ; start += limit) {
    const response: ApiResponse<PriceChangePage> = await api.request('GET', `${path}${separator}_start=${start}&_limit=${limit}`, {
      auth: [...auth] as [string, string],
    });
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${response.text}`);
    found.push(...response.body.price_changes);
    if (start + limit >= response.body.meta.total) return found;
  }
};
