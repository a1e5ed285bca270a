import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { GLOBAL_SECONDARY_INDEXES, TABLE_KEYS, type IndexDefinition } from '../../lambdas/config/table-schema.js';
import { itemSize } from './capacity-model.js';

/**
 * DynamoDB's published write-capacity model, applied to what was actually written: one change
 * of the table's stream is one item write, with the item before and after it. The table is
 * billed one unit per started KB of the larger of the two; each GSI one unit per started KB of
 * its entry for a put or a delete, both when the entry's key moved, one when only a projected
 * attribute changed, none when nothing it holds changed; a write inside a transaction twice.
 * DynamoDB Local reports none of the index or transactional writes, hence this count.
 */
type Item = Record<string, NativeAttributeValue>;

const units = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

const hasKeys = (item: Item | undefined, index: IndexDefinition): item is Item =>
  item !== undefined && item[index.partitionKey] !== undefined && item[index.sortKey] !== undefined;

const entryOf = (item: Item, index: IndexDefinition): Item =>
  index.projection === 'ALL'
    ? item
    : Object.fromEntries([TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, index.partitionKey, index.sortKey].map((name) => [name, item[name]]));

const sameJson = (a: unknown, b: unknown) =>
  JSON.stringify(a, (_, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v)) ===
  JSON.stringify(b, (_, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));

export interface WriteUnits {
  readonly table: number;
  readonly indexes: number;
}

export const writeUnitsOf = (before: Item | undefined, after: Item | undefined, transactional = false): WriteUnits => {
  const factor = transactional ? 2 : 1;
  const table = units(Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0));
  let indexes = 0;
  for (const index of GLOBAL_SECONDARY_INDEXES) {
    const was = hasKeys(before, index) ? entryOf(before, index) : undefined;
    const is = hasKeys(after, index) ? entryOf(after, index) : undefined;
    if (was && is) {
      const moved = was[index.partitionKey] !== is[index.partitionKey] || was[index.sortKey] !== is[index.sortKey];
      if (moved) indexes += units(itemSize(was)) + units(itemSize(is));
      else if (!sameJson(was, is)) indexes += units(Math.max(itemSize(was), itemSize(is)));
    } else if (was) indexes += units(itemSize(was));
    else if (is) indexes += units(itemSize(is));
  }
  return { table: table * factor, indexes: indexes * factor };
};
