/**
 * A DynamoDB stream in memory behind mocked SDK clients, for what DynamoDB Local will not do on
 * demand: roll a shard over (it does every 4 hours) or expire an iterator (after 15 minutes).
 * Shards behave as DynamoDB Local's do: a closed shard's last GetRecords has no next iterator.
 */
import { DeleteItemCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import { mockClient } from 'aws-sdk-client-mock';

export const STREAM_ARN = 'arn:aws:dynamodb:ddblocal:000000000000:table/fake/stream/2026-01-01T00:00:00.000';

interface FakeShard {
  readonly id: string;
  readonly parent: string | undefined;
  readonly records: _Record[];
  closed: boolean;
}

export interface FakeStream {
  /** Every call made, in order, e.g. `GetShardIterator shard-b TRIM_HORIZON`. */
  readonly calls: string[];
  /** Listed in the order given, which need not be lineage order. */
  addShard(id: string, options?: { parent?: string; closed?: boolean }): void;
  /** Appends records with the next sequence numbers; returns them. */
  write(shardId: string, ...keys: string[]): string[];
  close(shardId: string): void;
  /** The next GetRecords call throws this instead. */
  failNextGetRecords(error: Error): void;
  /** GetRecords calls that found nothing. */
  emptyReads(): number;
  restore(): void;
}

const sequence = (n: number) => String(n).padStart(21, '0');

export const fakeStream = (): FakeStream => {
  const shards: FakeShard[] = [];
  const calls: string[] = [];
  const pendingErrors: Error[] = [];
  let lastSequence = 0;
  let emptyReads = 0;
  const shard = (id: string | undefined): FakeShard => {
    const found = shards.find((candidate) => candidate.id === id);
    if (!found) throw new Error(`no shard ${id}`);
    return found;
  };
  const position = (found: FakeShard, type: string | undefined, sequenceNumber: string | undefined): number => {
    const index = found.records.findIndex((record) => record.dynamodb?.SequenceNumber === sequenceNumber);
    if (type === 'TRIM_HORIZON') return 0;
    if (type === 'LATEST') return found.records.length;
    if (type === 'AT_SEQUENCE_NUMBER') return index;
    return index + 1;
  };

  const append = (found: FakeShard, keys: Record<string, AttributeValue>): string => {
    const sequenceNumber = sequence(++lastSequence);
    found.records.push({
      eventID: `event-${lastSequence}`,
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'ddblocal',
      dynamodb: {
        ApproximateCreationDateTime: new Date('2026-01-01T00:00:00Z'),
        Keys: keys,
        NewImage: keys,
        SequenceNumber: sequenceNumber,
        SizeBytes: 20,
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    });
    return sequenceNumber;
  };

  const dynamo = mockClient(DynamoDBClient);
  dynamo.on(DescribeTableCommand).resolves({
    Table: {
      LatestStreamArn: STREAM_ARN,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
    },
  });
  // A put (settle()'s marker) lands in the open shard, as a write would.
  dynamo.on(PutItemCommand).callsFake((input: { Item?: Record<string, AttributeValue> }) => {
    const open = shards.findLast((listed) => !listed.closed);
    if (open && input.Item) append(open, { pk: input.Item.pk!, sk: input.Item.sk! });
    return {};
  });
  dynamo.on(DeleteItemCommand).resolves({});
  const streams = mockClient(DynamoDBStreamsClient);
  streams.on(DescribeStreamCommand).callsFake(() => {
    calls.push('DescribeStream');
    return {
      StreamDescription: {
        StreamArn: STREAM_ARN,
        Shards: shards.map((listed) => ({
          ShardId: listed.id,
          ...(listed.parent ? { ParentShardId: listed.parent } : {}),
          SequenceNumberRange: {
            StartingSequenceNumber: listed.records[0]?.dynamodb?.SequenceNumber ?? sequence(lastSequence + 1),
            ...(listed.closed ? { EndingSequenceNumber: listed.records.at(-1)?.dynamodb?.SequenceNumber ?? sequence(lastSequence) } : {}),
          },
        })),
      },
    };
  });
  streams.on(GetShardIteratorCommand).callsFake((input: { ShardId?: string; ShardIteratorType?: string; SequenceNumber?: string }) => {
    calls.push(`GetShardIterator ${input.ShardId} ${input.ShardIteratorType}${input.SequenceNumber ? ` ${input.SequenceNumber}` : ''}`);
    const found = shard(input.ShardId);
    return { ShardIterator: `${found.id}|${position(found, input.ShardIteratorType, input.SequenceNumber)}` };
  });
  streams.on(GetRecordsCommand).callsFake((input: { ShardIterator?: string; Limit?: number }) => {
    const [id, at] = (input.ShardIterator ?? '').split('|');
    const error = pendingErrors.shift();
    if (error) throw error;
    const found = shard(id);
    const start = Number(at);
    const records = found.records.slice(start, start + (input.Limit ?? 1000));
    if (records.length === 0) emptyReads += 1;
    if (records.length > 0) calls.push(`GetRecords ${found.id} ${records.map((record) => record.dynamodb?.Keys?.sk?.S).join(',')}`);
    const end = start + records.length;
    return { Records: records, ...(found.closed && end >= found.records.length ? {} : { NextShardIterator: `${found.id}|${end}` }) };
  });

  return {
    calls,
    addShard(id, options = {}) {
      shards.push({ id, parent: options.parent, records: [], closed: options.closed ?? false });
    },
    write(shardId, ...keys) {
      return keys.map((key) => append(shard(shardId), { pk: { S: 'ITEM' }, sk: { S: key } }));
    },
    close(shardId) {
      shard(shardId).closed = true;
    },
    failNextGetRecords(error) {
      pendingErrors.push(error);
    },
    emptyReads: () => emptyReads,
    restore() {
      dynamo.restore();
      streams.restore();
    },
  };
};
