import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { productRecord, type Product, type ProductFields } from '../../domain/records.js';
import { batchGet, batchWrite } from '../table/batch.js';
import { reserveIds } from '../table/counters.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { sameJson } from '../../domain/json.js';
import { productDirectoryEntry, productKey } from '../table/keys.js';
import { nowIso } from '../../config/clock.js';

/**
 * Products: one item per code, at the head of the product's partition (its offers and repricer
 * slots live beside it). The copies nested in offer listings follow from the change stream.
 */
export const storedProduct = z.object({
  record: productRecord,
  /** The marketplace's product line id (Takealot PLID) a market sync reads the product's page by; not part of the API record. */
  productLineId: z.string().optional(),
  /** The variant of the line the product is (Takealot TSIN): only a page showing this variant's buy box is the product's market. */
  variantId: z.string().optional(),
});

export const getProduct = async (clientId: string, code: string): Promise<Product | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: productKey(clientId, code) }));
  return result.Item ? storedProduct.parse(result.Item).record : undefined;
};

export const getProducts = async (clientId: string, codes: readonly string[]): Promise<Map<string, Product>> => {
  const items = await batchGet([...new Set(codes)].map((code) => productKey(clientId, code)));
  return new Map(
    items.map((item) => {
      const { record } = storedProduct.parse(item);
      return [record.code, record] as const;
    }),
  );
};

const withoutStamps = (p: Partial<Product>) => ({ ...p, id: 0, created_at: '', updated_at: '' });

/** The product item, listed in the keys-only `directory` index under its tenant. */
export const productItem = (clientId: string, record: Product, productLineId?: string, variantId?: string) => ({
  ...productKey(clientId, record.code),
  ...productDirectoryEntry(clientId, record.code),
  entity: 'product',
  record,
  ...(productLineId === undefined ? {} : { productLineId }),
  ...(variantId === undefined ? {} : { variantId }),
});

/** Products with their product line ids, as stored. */
export const getStoredProducts = async (clientId: string, codes: readonly string[]): Promise<Map<string, z.infer<typeof storedProduct>>> => {
  const items = await batchGet([...new Set(codes)].map((code) => productKey(clientId, code)));
  return new Map(
    items.map((item) => {
      const stored = storedProduct.parse(item);
      return [stored.record.code, stored] as const;
    }),
  );
};

export interface ProductWritePlan {
  readonly items: readonly ReturnType<typeof productItem>[];
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

/** What an upsert of `inputs` writes and counts; new products get ids here. */
export const planProducts = async (clientId: string, inputs: readonly ProductFields[], now = nowIso()): Promise<ProductWritePlan> => {
  const stored = await getStoredProducts(
    clientId,
    inputs.map((p) => p.code),
  );
  const existing = new Map([...stored].map(([code, { record }]) => [code, record] as const));
  const changed = inputs.filter((input) => {
    const before = existing.get(input.code);
    return !before || !sameJson(withoutStamps(before), withoutStamps(input));
  });
  const fresh = changed.filter((input) => !existing.has(input.code)).length;
  let next = fresh > 0 ? await reserveIds('product', fresh) : 0;
  const items = changed.map((input) => {
    const before = existing.get(input.code);
    const record: Product = { id: before?.id ?? next++, ...input, created_at: before?.created_at ?? now, updated_at: now };
    // An import keeps the product line and variant ids a market sync stored.
    return productItem(clientId, record, stored.get(input.code)?.productLineId, stored.get(input.code)?.variantId);
  });
  return { items, created: fresh, updated: changed.length - fresh, unchanged: inputs.length - changed.length };
};

export const writeProductPlan = (plan: ProductWritePlan): Promise<void> => batchWrite(plan.items.map((put) => ({ put })));

/** Upserts products by code; an unchanged product is not rewritten. Returns how many were written. */
export const upsertProducts = async (clientId: string, inputs: readonly ProductFields[], now = nowIso()): Promise<number> => {
  const plan = await planProducts(clientId, inputs, now);
  await writeProductPlan(plan);
  return plan.items.length;
};
