import { TransactWriteCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../../table/dynamo.js';
import { cancellationReasons, type CancellationReason } from '../../table/transactions.js';
import { entryReader } from './apply-batched.js';
import { deltasOf } from './deltas.js';
import { listingItem, listingKey } from './listings.js';
import { nodeCovering } from './node-loader.js';
import { partitionOf, type NodeLocation, type TransactItem } from './node-store.js';
import { countAttribute, FIRST_BOUND, totalOf, type RankNode } from './nodes.js';
import { type ListingPlace, type RankedList } from './ranked-list.js';
import { BUCKET_MAX, BUCKET_TARGET, rebalanceOrder } from './rebalance.js';

export type TransactionalOutcome =
  | { readonly committed: true }
  /** A condition of the caller's own item `failed` (an index into `own`) did not hold. */
  | { readonly committed: false; readonly failed: number; readonly reason: CancellationReason }
  /** A node moved or another transaction held an item: read again and retry (the caller's one retry loop). */
  | { readonly committed: false; readonly failed: 'race' };

interface NodeUpdate {
  readonly at: NodeLocation;
  readonly node: RankNode | undefined;
  readonly add: Map<string, number>;
  maxKey: string;
}

/** ADDs to the counts of one node, on condition that its bounds still cover every key added. */
const nodeUpdate = ({ at, node, add, maxKey }: NodeUpdate): TransactItem => {
  const names: Record<string, string> = {};
  const values: Record<string, NativeAttributeValue> = { ':one': 1, ':max': maxKey, ':entity': 'rankNode' };
  const adds = [...add].map(([cell, d], i) => {
    names[`#c${i}`] = countAttribute(cell);
    values[`:d${i}`] = d;
    return `#c${i} :d${i}`;
  });
  const lo = node?.lo ?? FIRST_BOUND;
  const bounds = '(attribute_not_exists(hi) OR hi > :max)';
  return {
    Update: {
      TableName: tableName(),
      Key: { pk: partitionOf(at), sk: lo },
      UpdateExpression: `SET entity = :entity ADD ${[...adds, 'v :one'].join(', ')}`,
      // The first node may not exist yet (an empty list); any other must, with the same bounds.
      ConditionExpression: lo === FIRST_BOUND ? bounds : `attribute_exists(pk) AND ${bounds}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};

/**
 * Writes one item's change together with its listing item and the counts of the nodes it
 * leaves and enters, in one transaction, for entities written concurrently by many requests
 * (read-your-writes: a committed change lists at once). Counts are ADDed, so concurrent
 * writers never wait for one another's version; a node that was split meanwhile fails its
 * bounds condition, and the caller, which read what it writes, retries the whole write in its
 * one retry loop. `own` are the caller's items (its canonical item, a uniqueness guard), first
 * in the transaction.
 */
export const commitTransactional = async <S, R>(
  clientId: string,
  list: RankedList<S, R>,
  change: { readonly before?: ListingPlace; readonly after?: { readonly place: ListingPlace; readonly record: R; readonly src: string } },
  own: readonly TransactItem[],
): Promise<TransactionalOutcome> => {
  if (list.histogramOf) throw new Error('Histogram counts cannot be ADDed; this entity must be maintained in batches');
  const { before } = change;
  const after = change.after?.place;
  const deltas = deltasOf(list, before, after);
  const updates = new Map<string, NodeUpdate>();
  await Promise.all(
    [...deltas].flatMap(([order, moves]) =>
      moves.flatMap((move) =>
        (['b', 'c'] as const).map(async (level) => {
          const at = { clientId, tag: list.tag, order, level };
          const node = await nodeCovering(at, move.key);
          const id = `${order}|${level}|${node?.lo ?? FIRST_BOUND}`;
          const update = updates.get(id) ?? { at, node, add: new Map<string, number>(), maxKey: move.key };
          update.add.set(move.cell, (update.add.get(move.cell) ?? 0) + move.d);
          if (move.key > update.maxKey) update.maxKey = move.key;
          updates.set(id, update);
        }),
      ),
    ),
  );
  const listing: TransactItem[] = [];
  if (before && (!after || after.cell !== before.cell))
    listing.push({ Delete: { TableName: tableName(), Key: listingKey(clientId, list, before.cell, before.id) } });
  if (after && change.after) listing.push({ Put: { TableName: tableName(), Item: listingItem(clientId, list, after, change.after.record, change.after.src) } });
  try {
    await documentClient.send(new TransactWriteCommand({ TransactItems: [...own, ...listing, ...[...updates.values()].map(nodeUpdate)] }));
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (!reasons) throw error;
    const failed = reasons.slice(0, own.length).findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
    return failed >= 0 ? { committed: false, failed, reason: reasons[failed]! } : { committed: false, failed: 'race' };
  }

  // Splits and merges are not part of the write: a bucket that grew past its size is split,
  // one that shrank is merged with its neighbours, now.
  const unbalanced = [...updates.values()].filter(({ at, node, add }) => {
    const added = [...add.values()].reduce((sum, d) => sum + d, 0);
    const total = (node ? totalOf(node) : 0) + added;
    return at.level === 'b' && node && (total > BUCKET_MAX || (added < 0 && total < BUCKET_TARGET / 4));
  });
  await Promise.all(
    unbalanced.map(({ at, node }) => rebalanceOrder({ clientId, tag: list.tag, order: at.order }, [node!.lo], entryReader(clientId, list, at.order), false)),
  );
  return { committed: true };
};
