import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { productRecord, type Product, type ProductFields } from '../domain/records.js';
import { backoff, batchGet } from './batch.js';
import { isConflict } from './transactions.js';
import { reserveIds } from './counters.js';
import { documentClient, tableName } from './dynamo.js';
import { sameJson } from './json.js';
import { offerViewPartition, productKey, productOffersPartition } from './keys.js';
import { storedMembership } from './offer-items.js';

/** `copiesAt` trails `updatedAt` while the copies nested in the product's offers are being rewritten. */
const storedProduct = z.object({ record: productRecord, updatedAt: z.string(), copiesAt: z.string().optional() });
type StoredProduct = z.infer<typeof storedProduct>;
const TRANSACTION_LIMIT = 100;

export const getProduct = async (clientId: string, code: string): Promise<Product | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: productKey(clientId, code) }));
  return result.Item ? storedProduct.parse(result.Item).record : undefined;
};

const getStoredProducts = async (clientId: string, codes: readonly string[]): Promise<Map<string, StoredProduct>> => {
  const items = await batchGet([...new Set(codes)].map((code) => productKey(clientId, code)));
  return new Map(items.map((item) => {
    const stored = storedProduct.parse(item);
    return [stored.record.code, stored] as const;
  }));
};

export const getProducts = async (clientId: string, codes: readonly string[]): Promise<Map<string, Product>> =>
  new Map([...(await getStoredProducts(clientId, codes))].map(([code, stored]) => [code, stored.record]));

const withoutStamps = (p: Partial<Product>) => ({ ...p, id: 0, created_at: '', updated_at: '' });

/**
 * Upserts products by code, then rewrites the copies nested in the product's offer views.
 * The product is written first: an offer write that read the old product fails its condition
 * on `updatedAt` and retries, and every offer committed before is found by the membership
 * Query that follows. `copiesAt` records that the copies caught up; a product whose copies
 * did not (a failure half-way) is finished by the next upsert even when it is unchanged.
 */
export const upsertProducts = async (clientId: string, inputs: readonly ProductFields[], now = new Date().toISOString()): Promise<number> => {
  const existing = await getStoredProducts(clientId, inputs.map((p) => p.code));
  let written = 0;
  for (const input of inputs) {
    const before = existing.get(input.code);
    if (before && sameJson(withoutStamps(before.record), withoutStamps(input))) {
      if (before.copiesAt !== before.updatedAt) await rewriteCopies(clientId, before.record);
      continue;
    }
    const record: Product = {
      id: before?.record.id ?? (await reserveIds('product')),
      ...input,
      created_at: before?.record.created_at ?? now,
      updated_at: now,
    };
    await documentClient.send(
      new PutCommand({ TableName: tableName(), Item: { ...productKey(clientId, record.code), entity: 'product', updatedAt: record.updated_at, record } }),
    );
    await rewriteCopies(clientId, record);
    existing.set(input.code, { record, updatedAt: record.updated_at, copiesAt: record.updated_at });
    written++;
  }
  return written;
};

/** Rewrites the copies; an offer that moved meanwhile makes a transaction fail, so re-read and retry. */
const rewriteCopies = async (clientId: string, record: Product, attempt = 0): Promise<void> => {
  try {
    await rewriteCopiesOnce(clientId, record);
  } catch (error) {
    if (!isConflict(error) || attempt >= 5) throw error;
    await backoff(attempt + 1);
    await rewriteCopies(clientId, record, attempt + 1);
  }
};

const rewriteCopiesOnce = async (clientId: string, record: Product): Promise<void> => {
  const copies: { pk: string; sk: string }[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': productOffersPartition(clientId, record.code) },
        ConsistentRead: true,
        ExclusiveStartKey: exclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const { views } = storedMembership.parse(item);
      for (const view of views) copies.push({ pk: offerViewPartition(clientId, view), sk: String(item.sk) });
    }
    exclusiveStartKey = page.LastEvaluatedKey;
  } while (exclusiveStartKey);

  const copyUpdates = copies.map((Key) => ({
    Update: {
      TableName: tableName(),
      Key,
      UpdateExpression: 'SET #record.#product = :product',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#record': 'record', '#product': 'product' },
      ExpressionAttributeValues: { ':product': record },
    },
  }));
  for (let i = 0; i < copyUpdates.length; i += TRANSACTION_LIMIT) {
    await documentClient.send(new TransactWriteCommand({ TransactItems: copyUpdates.slice(i, i + TRANSACTION_LIMIT) }));
  }
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: productKey(clientId, record.code),
      UpdateExpression: 'SET copiesAt = :at',
      ConditionExpression: 'updatedAt = :at',
      ExpressionAttributeValues: { ':at': record.updated_at },
    }),
  );
};
