import { applyKeyChanges, mergeSmallBuckets, splitBucket, type RankDirectory } from '../domain/rank-directory.js';
import { batchGet, keyString } from './batch.js';
import { tableName } from './dynamo.js';
import type { RankOrder } from './rank-order.js';
import { decodeDirectory, encodeDirectory, keysInBucket } from './rank-store.js';

/**
 * Keeps rank directories equal to their indexes: a write that moves view items also moves the
 * directories' counts, in the same transaction, conditioned on each directory's version.
 */
export interface KeyDelta {
  inserted: string[];
  removed: string[];
}

/** The key moves of one write in one directory (one view in one order). */
export interface DirectoryChange {
  readonly view: string;
  readonly order: RankOrder;
  readonly delta: KeyDelta;
}

export type TransactAction = Record<string, unknown>;

/**
 * Adds to `deltas` the moves between an item's directory entries before and after a write
 * (directory id -> the item's key in it); an entry with the same key on both sides is no move.
 */
export const collectKeyMoves = (
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  deltas: Map<string, KeyDelta>,
): void => {
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const oldKey = before.get(id);
    const newKey = after.get(id);
    if (oldKey === newKey) continue;
    const delta = deltas.get(id) ?? { inserted: [], removed: [] };
    deltas.set(id, delta);
    if (oldKey) delta.removed.push(oldKey);
    if (newKey) delta.inserted.push(newKey);
  }
};

/** Directory writes for one transaction: counts moved, oversized buckets split, small ones merged. */
export const directoryActions = async (clientId: string, changes: readonly DirectoryChange[]): Promise<TransactAction[]> => {
  const keys = changes.map(({ view, order }) => order.directoryKey(clientId, view));
  const stored = new Map((await batchGet(keys)).map((item) => [keyString(item as { pk: string; sk: string }), item]));
  const actions: TransactAction[] = [];
  for (const [i, { view, order, delta }] of changes.entries()) {
    const key = keys[i]!;
    const current = decodeDirectory(stored.get(keyString(key)), order);
    const applied = applyKeyChanges(current.directory, delta, order.histogramPrefix);
    let directory: RankDirectory = applied.directory;
    // Split from the highest index down so lower indexes stay valid.
    for (const index of [...applied.oversized].reverse()) {
      const lower = directory.bounds[index] ?? '';
      const upper = directory.bounds[index + 1];
      const inRange = (k: string) => k >= lower && (upper === undefined || k < upper);
      const removed = new Set(delta.removed);
      const bucketKeys = (await keysInBucket(clientId, view, order, lower, upper))
        .filter((k) => !removed.has(k))
        .concat(delta.inserted.filter(inRange))
        .sort();
      directory = splitBucket(directory, index, bucketKeys);
    }
    directory = mergeSmallBuckets(directory);
    actions.push({
      Put: {
        TableName: tableName(),
        Item: { ...key, entity: 'rankDirectory', ...encodeDirectory(directory), version: current.version + 1 },
        ...(current.version === 0
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': current.version } }),
      },
    });
  }
  return actions;
};
