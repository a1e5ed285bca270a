import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { backoff } from './batch.js';
import { documentClient, tableName } from './dynamo.js';
import { repricerKey } from './keys.js';
import { collectKeyMoves, directoryActions, type KeyDelta, type TransactAction } from './rank-maintenance.js';
import { REPRICER_RANK_ORDERS, repricerViewsOf } from './repricer-keys.js';
import {
  repricerItem,
  repricerRankEntries,
  repricerViewItems,
  repricerViewKey,
  splitRepricerDirectoryId,
  type StoredRepricer,
} from './repricer-items.js';
import { cancellationReasons, isConflict, type CancellationReason } from './transactions.js';

/** A repricer before and after one write: no `before` creates it, no `after` deletes it. */
export interface RepricerChange {
  readonly before?: StoredRepricer;
  readonly after?: StoredRepricer;
  /** The slot write of a create or delete; it goes right after the repricer item. */
  readonly slot?: TransactAction;
}

export type CommitResult =
  | { readonly committed: true }
  /** A condition of the repricer item (0) or the slot (1) failed: the caller decides what it means. */
  | { readonly committed: false; readonly failed: number; readonly reason: CancellationReason; readonly error: unknown };

const MAX_ATTEMPTS = 6;

/** The repricer item, the slot and the view items; the directories are added per attempt. */
const itemActions = (clientId: string, { before, after, slot }: RepricerChange): TransactAction[] => {
  const table = tableName();
  const condition = before
    ? { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': before.version } }
    : { ConditionExpression: 'attribute_not_exists(pk)' };
  const actions: TransactAction[] = [];
  if (after) actions.push({ Put: { TableName: table, Item: repricerItem(clientId, after), ...condition } });
  else if (before) actions.push({ Delete: { TableName: table, Key: repricerKey(clientId, before.record.id), ...condition } });
  if (slot) actions.push(slot);
  const afterViews = after ? repricerViewItems(clientId, after.record) : [];
  for (const { item } of afterViews) actions.push({ Put: { TableName: table, Item: item } });
  if (before) {
    const kept = new Set(afterViews.map((v) => v.view));
    for (const view of repricerViewsOf(before.record)) {
      if (!kept.has(view)) actions.push({ Delete: { TableName: table, Key: repricerViewKey(clientId, view, before.record.id) } });
    }
  }
  return actions;
};

/**
 * Writes a repricer change in one transaction: the repricer item (conditioned on its version),
 * its slot, its view items and the rank directories of its views. Losing a race on a directory
 * (another write of the same client) re-reads the directories and tries again; a failed
 * condition on the repricer or its slot is the caller's to interpret.
 */
export const commitRepricerChange = async (clientId: string, change: RepricerChange): Promise<CommitResult> => {
  const items = itemActions(clientId, change);
  const ownActions = change.slot ? 2 : 1;
  const deltas = new Map<string, KeyDelta>();
  collectKeyMoves(repricerRankEntries(change.before?.record), repricerRankEntries(change.after?.record), deltas);
  const directoryChanges = [...deltas].map(([id, delta]) => {
    const { view, sort } = splitRepricerDirectoryId(id);
    return { view, order: REPRICER_RANK_ORDERS[sort], delta };
  });
  for (let attempt = 1; ; attempt++) {
    try {
      const directories = await directoryActions(clientId, directoryChanges);
      await documentClient.send(new TransactWriteCommand({ TransactItems: [...items, ...directories] as never }));
      return { committed: true };
    } catch (error) {
      const reasons = cancellationReasons(error) ?? [];
      const failed = reasons.slice(0, ownActions).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed >= 0) return { committed: false, failed, reason: reasons[failed]!, error };
      if (!isConflict(error) || attempt >= MAX_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
};
