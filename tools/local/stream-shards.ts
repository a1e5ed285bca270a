/**
 * Which shards of a stream to read, and when. A DynamoDB stream's shards form a lineage: when
 * a shard is closed (DynamoDB Local rolls its open shard over every 4 hours, AWS more often)
 * its records continue in a child shard that names it as `ParentShardId`. Lambda reads a child
 * only once its parent is read to the end, which keeps every item's changes in order.
 */
import { DescribeStreamCommand, type DynamoDBStreamsClient, type Shard } from '@aws-sdk/client-dynamodb-streams';

export interface ListedShard {
  readonly shardId: string;
  readonly parentShardId: string | undefined;
  /** A closed shard has an ending sequence number; it will get no new records. */
  readonly closed: boolean;
}

const toListedShard = (shard: Shard): ListedShard[] =>
  shard.ShardId === undefined
    ? []
    : [{ shardId: shard.ShardId, parentShardId: shard.ParentShardId, closed: shard.SequenceNumberRange?.EndingSequenceNumber !== undefined }];

/** Every shard DescribeStream lists (it pages them, 100 at a time on AWS). */
export const describeShards = async (client: DynamoDBStreamsClient, streamArn: string, signal: AbortSignal): Promise<ListedShard[]> => {
  const shards: ListedShard[] = [];
  let exclusiveStartShardId: string | undefined;
  do {
    const page = await client.send(
      new DescribeStreamCommand({ StreamArn: streamArn, ...(exclusiveStartShardId ? { ExclusiveStartShardId: exclusiveStartShardId } : {}) }),
      { abortSignal: signal },
    );
    shards.push(...(page.StreamDescription?.Shards ?? []).flatMap(toListedShard));
    exclusiveStartShardId = page.StreamDescription?.LastEvaluatedShardId;
  } while (exclusiveStartShardId);
  return shards;
};

/**
 * The shards to start reading now: those not started yet whose parent is finished, or is no
 * longer listed (a parent older than the stream's 24-hour retention has nothing left to read).
 */
export const shardsReadyToRead = (shards: readonly ListedShard[], started: ReadonlySet<string>, finished: ReadonlySet<string>): ListedShard[] => {
  const listed = new Set(shards.map((shard) => shard.shardId));
  return shards.filter(
    (shard) => !started.has(shard.shardId) && (shard.parentShardId === undefined || finished.has(shard.parentShardId) || !listed.has(shard.parentShardId)),
  );
};
