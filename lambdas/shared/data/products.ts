import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { productRecord, type Product, type ProductFields } from '../domain/records.js';
import { batchGet } from './batch.js';
import { reserveIds } from './counters.js';
import { documentClient, tableName } from './dynamo.js';
import { sameJson } from './json.js';
import { offerViewPartition, productKey, productOffersPartition } from './keys.js';
import { storedMembership } from './offer-items.js';

const storedProduct = z.object({ record: productRecord });
const TRANSACTION_LIMIT = 100;

export const getProduct = async (clientId: string, code: string): Promise<Product | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: productKey(clientId, code) }));
  return result.Item ? storedProduct.parse(result.Item).record : undefined;
};

export const getProducts = async (clientId: string, codes: readonly string[]): Promise<Map<string, Product>> => {
  const unique = [...new Set(codes)];
  const items = await batchGet(unique.map((code) => productKey(clientId, code)));
  return new Map(items.map((item) => {
    const record = storedProduct.parse(item).record;
    return [record.code, record] as const;
  }));
};

const withoutStamps = (p: Partial<Product>) => ({ ...p, id: 0, created_at: '', updated_at: '' });

/**
 * Upserts products by code. A changed product is written together with the copies nested in
 * its offers' view items (in transactions of up to 100 writes), so a listed offer always
 * carries its product as it is now.
 */
export const upsertProducts = async (clientId: string, inputs: readonly ProductFields[], now = new Date().toISOString()): Promise<number> => {
  const existing = await getProducts(clientId, inputs.map((p) => p.code));
  let written = 0;
  for (const input of inputs) {
    const before = existing.get(input.code);
    if (before && sameJson(withoutStamps(before), withoutStamps(input))) continue;
    const record: Product = {
      id: before?.id ?? (await reserveIds('product')),
      ...input,
      created_at: before?.created_at ?? now,
      updated_at: now,
    };
    await writeProductAndCopies(clientId, record);
    existing.set(input.code, record);
    written++;
  }
  return written;
};

const writeProductAndCopies = async (clientId: string, record: Product): Promise<void> => {
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

  const productPut = {
    Put: { TableName: tableName(), Item: { ...productKey(clientId, record.code), entity: 'product', updatedAt: record.updated_at, record } },
  };
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
  const actions = [productPut, ...copyUpdates];
  for (let i = 0; i < actions.length; i += TRANSACTION_LIMIT) {
    await documentClient.send(new TransactWriteCommand({ TransactItems: actions.slice(i, i + TRANSACTION_LIMIT) }));
  }
};
