/**
 * Creates the service table on a DynamoDB endpoint from `lambdas/config/table-schema.ts`, the same
 * definition the CDK stack deploys, so the local table cannot drift from the real one.
 */
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { GLOBAL_SECONDARY_INDEXES, KEY_ATTRIBUTES, STREAM_VIEW_TYPE, TABLE_KEYS, TTL_ATTRIBUTE } from '../../lambdas/config/table-schema.js';

const WAIT_SECONDS = 60;

export const createTableInput = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
  KeySchema: [
    { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
    { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
  ],
  GlobalSecondaryIndexes: GLOBAL_SECONDARY_INDEXES.map((index) => ({
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' },
      { AttributeName: index.sortKey, KeyType: 'RANGE' },
    ],
    Projection: { ProjectionType: index.projection },
  })),
  StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE },
});

export const tableExists = async (client: DynamoDBClient, tableName: string): Promise<boolean> => {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as Error).name === 'ResourceNotFoundException') return false;
    throw error;
  }
};

/** Creates the table, waits until it is ACTIVE, then turns on TTL. Fails if it exists. */
export const createTable = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitUntilTableExists({ client, maxWaitTime: WAIT_SECONDS, minDelay: 1 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
};

/** Bounds of a table deletion on a slow DynamoDB Local: per request, in failed attempts and in all. */
export interface DeleteTableOptions {
  readonly attemptTimeoutMs?: number;
  readonly attempts?: number;
  readonly deadlineMs?: number;
  /** The first backoff; it doubles after each failure, up to 4 s. */
  readonly backoffMs?: number;
}

const DELETE_DEFAULTS: Required<DeleteTableOptions> = { attemptTimeoutMs: 20_000, attempts: 6, deadlineMs: 90_000, backoffMs: 250 };
const MAX_BACKOFF_MS = 4_000;

interface FailedRequest {
  readonly name?: string;
  readonly code?: string;
  readonly message?: string;
}

/**
 * Failures a busy DynamoDB Local gives that a later attempt does not: a socket it closed under a
 * request (`socket hang up`), a request that ran past its time, a table still being created or
 * deleted, writes that kept losing races (the data layer's `ContentionError`).
 */
const TRANSIENT_NAMES = new Set([
  'TimeoutError',
  'AbortError',
  'RequestTimeout',
  'ResourceInUseException',
  'InternalServerError',
  'ServiceUnavailable',
  'ThrottlingException',
  'TransactionConflictException',
  'ContentionError',
]);

export const isTransientFailure = (error: unknown): boolean => {
  const { name = '', code = '', message = '', cause } = (error ?? {}) as FailedRequest & { cause?: unknown };
  return (
    TRANSIENT_NAMES.has(name) ||
    ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED'].includes(code) ||
    /socket hang up/i.test(message) ||
    // An import that stopped on a timeout reports it as its cause.
    (cause !== undefined && cause !== error && isTransientFailure(cause))
  );
};

/** An endpoint that refuses connections has stopped, and DynamoDB Local keeps its tables in memory. */
const isGoneEndpoint = (error: unknown): boolean => (error as FailedRequest | undefined)?.code === 'ECONNREFUSED';

const isMissingTable = (error: unknown): boolean =>
  error instanceof ResourceNotFoundException || (error as FailedRequest | undefined)?.name === 'ResourceNotFoundException';

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Deletes the table and waits until it is gone. A slow DynamoDB Local (a test run on a busy
 * machine) hangs up sockets or answers late: each request is then tried again after a doubling
 * backoff, within a bound in attempts and in time. A table that is already gone, or whose
 * DynamoDB Local has stopped, counts as deleted, so a teardown never fails for a table that
 * no longer exists.
 */
export const deleteTable = async (client: DynamoDBClient, tableName: string, options: DeleteTableOptions = {}): Promise<void> => {
  const { attemptTimeoutMs, attempts, deadlineMs, backoffMs } = { ...DELETE_DEFAULTS, ...options };
  const deadline = Date.now() + deadlineMs;
  const request = { TableName: tableName };
  let delay = backoffMs;
  let deleteSent = false;
  let lastError: unknown;
  let failures = 0;
  while (failures < attempts && Date.now() < deadline) {
    try {
      const signal = AbortSignal.timeout(Math.min(attemptTimeoutMs, Math.max(1, deadline - Date.now())));
      if (!deleteSent) {
        await client.send(new DeleteTableCommand(request), { abortSignal: signal });
        deleteSent = true;
      }
      // DeleteTable returns while the table is DELETING; it is gone once DescribeTable says so.
      await client.send(new DescribeTableCommand(request), { abortSignal: signal });
      lastError = new Error(`Table ${tableName} was still being deleted`);
    } catch (error) {
      if (isMissingTable(error) || isGoneEndpoint(error)) return;
      if (!isTransientFailure(error)) throw error;
      lastError = error;
      failures += 1;
    }
    await pause(Math.min(delay, Math.max(0, deadline - Date.now())));
    delay = Math.min(delay * 2, MAX_BACKOFF_MS);
  }
  throw new Error(`Could not delete table ${tableName} (${failures} failed attempts, at most ${attempts}) within ${Math.round(deadlineMs / 1000)} s`, {
    cause: lastError,
  });
};
