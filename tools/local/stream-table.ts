/**
 * What the stream poller needs to know about its table: the stream's ARN, and the key schema
 * that the marker items of `settle()` are written with. A marker's partition key starts with
 * `SETTLE_MARKER_PREFIX`, so the poller can tell its records from the service's and keep them
 * from the handler.
 */
import { DescribeTableCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';

/** No real key of the service starts with this. */
export const SETTLE_MARKER_PREFIX = 'LOCAL#SETTLE#';

export interface TableKeys {
  readonly partitionKey: string;
  readonly sortKey?: { readonly name: string; readonly type: string };
  readonly partitionKeyType: string;
}

export const describeStreamTable = async (client: DynamoDBClient, tableName: string): Promise<{ streamArn: string; keys: TableKeys }> => {
  const { Table: table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const streamArn = table?.LatestStreamArn;
  if (!streamArn || table?.StreamSpecification?.StreamEnabled !== true) {
    throw new Error(`Table ${tableName} has no stream: create it with StreamSpecification { StreamEnabled: true, StreamViewType: ... }`);
  }
  const typeOf = (name: string) => table.AttributeDefinitions?.find((definition) => definition.AttributeName === name)?.AttributeType ?? 'S';
  const hash = table.KeySchema?.find((key) => key.KeyType === 'HASH')?.AttributeName;
  const range = table.KeySchema?.find((key) => key.KeyType === 'RANGE')?.AttributeName;
  if (!hash) throw new Error(`Table ${tableName} has no partition key`);
  return {
    streamArn,
    keys: { partitionKey: hash, partitionKeyType: typeOf(hash), ...(range ? { sortKey: { name: range, type: typeOf(range) } } : {}) },
  };
};

/** A marker's key: a unique partition key, and the sort key (if any) fixed. */
export const markerKey = (keys: TableKeys, id: string): Record<string, AttributeValue> => {
  if (keys.partitionKeyType !== 'S') throw new Error('settle() needs a table whose partition key is a string');
  const sortValue: Record<string, AttributeValue> = { S: { S: 'LOCAL#SETTLE' }, N: { N: '0' }, B: { B: new Uint8Array([0]) } };
  const key: Record<string, AttributeValue> = { [keys.partitionKey]: { S: `${SETTLE_MARKER_PREFIX}${id}` } };
  if (keys.sortKey) {
    const value = sortValue[keys.sortKey.type];
    if (!value) throw new Error(`settle() cannot write a sort key of type ${keys.sortKey.type}`);
    key[keys.sortKey.name] = value;
  }
  return key;
};

export const markerIdOf = (record: DynamoDBRecord, partitionKey: string): string | undefined => {
  const value = record.dynamodb?.Keys?.[partitionKey]?.S;
  return value?.startsWith(SETTLE_MARKER_PREFIX) ? value.slice(SETTLE_MARKER_PREFIX.length) : undefined;
};
