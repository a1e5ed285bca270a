/**
 * Drives a Lambda handler from a DynamoDB Local table's stream, as Lambda's DynamoDB event
 * source mapping does on AWS (with `ReportBatchItemFailures`): the same `DynamoDBStreamEvent`,
 * batches of up to `batchSize` records gathered for at most `maximumBatchingWindowMs`, one batch
 * in flight per shard, shards in lineage order, retries from the first failed record, and an
 * on-failure callback once a record's retries are exhausted.
 *
 * `settle()` lets tests and `npm start` wait until the handler has seen every change made so far.
 * It writes a marker item (partition key `LOCAL#SETTLE#<id>`) and waits for the poller to pass
 * its record; marker records are never shown to the handler, as an event filter would drop
 * them, so handlers see exactly what they would see on AWS.
 */
import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { batchFailure, thrownFailure, type BatchFailure } from './batch-failures.js';
import { createLocalDynamoClient, localClientSettings } from './dynamodb-local.js';
import { localLambdaContext } from './lambda-context.js';
import { ShardReader, type StartingPosition } from './shard-reader.js';
import { sleep } from './sleep.js';
import { sequenceNumberOf } from './stream-records.js';
import { installedClock, type Clock } from '../../lambdas/config/clock.js';
import { withoutCallLogging } from '../../lambdas/observability/sdk-call-logging.js';
import { describeShards, shardsReadyToRead, type ListedShard } from './stream-shards.js';
import { describeStreamTable, markerIdOf, markerKey, type TableKeys } from './stream-table.js';

export { SETTLE_MARKER_PREFIX } from './stream-table.js';

export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export interface StreamPollerOptions {
  readonly endpoint: string;
  readonly tableName: string;
  readonly handler: StreamHandler;
  /** Records per invocation at most (Lambda's default for DynamoDB streams). */
  readonly batchSize?: number;
  /** How long to gather records while fewer than `batchSize` are available. */
  readonly maximumBatchingWindowMs?: number;
  /**
   * Pause after a GetRecords call that found nothing new, doubled for each further empty call up
   * to `idlePollMaxMs`, and back to this once records come or `settle()` writes its marker.
   */
  readonly pollIntervalMs?: number;
  /**
   * The longest pause of an idle shard: Lambda's own rate for a stream, four polls a second. Each
   * empty GetRecords costs DynamoDB Local more as its streams grow (every record of every table
   * it ever held counts, deleted tables included), and all of its SQLite work runs on one
   * thread: polling an idle shard twenty times a second took that thread for whole test files.
   */
  readonly idlePollMaxMs?: number;
  /**
   * Retries after a failed first attempt before the records go to `onFailure` and are skipped;
   * -1 retries until they succeed, as Lambda's default does. The local default is finite so a
   * record the handler cannot process does not hold up its shard forever.
   */
  readonly maxRetryAttempts?: number;
  /** Backoff before the first retry, doubled for each further one up to `retryMaxDelayMs`. */
  readonly retryBaseDelayMs?: number;
  readonly retryMaxDelayMs?: number;
  /** Where to start in the shards open when the poller starts; shards created later are read from their start. */
  readonly startingPosition?: StartingPosition;
  /** How often DescribeStream is asked for new shards. */
  readonly shardDiscoveryIntervalMs?: number;
  /** The `functionName` of the context handed to the handler. */
  readonly functionName?: string;
  /** Records skipped after their retries, like an on-failure destination (which gets their batch's details). */
  readonly onFailure?: (records: DynamoDBRecord[], error: Error) => void | Promise<void>;
  /** Errors of the poller itself (DynamoDB Local unreachable, a failing `onFailure`); polling goes on. */
  readonly onError?: (error: Error) => void;
  /** The time of batching windows and retry backoffs (the installed clock by default). */
  readonly clock?: Clock;
}

export interface StreamPoller {
  readonly streamArn: string;
  /** Resolves once every record of the writes made before the call has been handled. */
  settle(): Promise<void>;
  /** Stops polling and resolves once the batch in flight, if any, is handled. */
  stop(): Promise<void>;
}

const DEFAULTS = {
  batchSize: 100,
  maximumBatchingWindowMs: 50,
  pollIntervalMs: 50,
  idlePollMaxMs: 250,
  maxRetryAttempts: 3,
  retryBaseDelayMs: 100,
  retryMaxDelayMs: 1_000,
  startingPosition: 'TRIM_HORIZON',
  shardDiscoveryIntervalMs: 1_000,
  functionName: 'local-stream-consumer',
} as const;

/** A streams client for a local endpoint. One attempt: the readers retry on their own schedule; SDK retries would only delay `stop()`. */
export const localStreamsClient = (endpoint: string): DynamoDBStreamsClient => withoutCallLogging(new DynamoDBStreamsClient(localClientSettings(endpoint)));

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

const settingsOf = (options: StreamPollerOptions) => {
  const settings = {
    batchSize: options.batchSize ?? DEFAULTS.batchSize,
    maximumBatchingWindowMs: options.maximumBatchingWindowMs ?? DEFAULTS.maximumBatchingWindowMs,
    pollIntervalMs: options.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
    idlePollMaxMs: Math.max(options.idlePollMaxMs ?? DEFAULTS.idlePollMaxMs, options.pollIntervalMs ?? DEFAULTS.pollIntervalMs),
    maxRetryAttempts: options.maxRetryAttempts ?? DEFAULTS.maxRetryAttempts,
    retryBaseDelayMs: options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs,
    retryMaxDelayMs: options.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs,
    startingPosition: options.startingPosition ?? DEFAULTS.startingPosition,
    shardDiscoveryIntervalMs: options.shardDiscoveryIntervalMs ?? DEFAULTS.shardDiscoveryIntervalMs,
    functionName: options.functionName ?? DEFAULTS.functionName,
  };
  // Lambda's own bounds for a DynamoDB event source mapping.
  if (!Number.isInteger(settings.batchSize) || settings.batchSize < 1 || settings.batchSize > 10_000) {
    throw new RangeError(`batchSize must be an integer from 1 to 10000, not ${settings.batchSize}`);
  }
  if (!Number.isInteger(settings.maxRetryAttempts) || settings.maxRetryAttempts < -1 || settings.maxRetryAttempts > 10_000) {
    throw new RangeError(`maxRetryAttempts must be an integer from -1 to 10000, not ${settings.maxRetryAttempts}`);
  }
  return settings;
};

export const startStreamPoller = async (options: StreamPollerOptions): Promise<StreamPoller> => {
  const settings = settingsOf(options);
  const reportError = options.onError ?? (() => undefined);
  const dynamo = createLocalDynamoClient(options.endpoint);
  const streams = localStreamsClient(options.endpoint);
  let table: { streamArn: string; keys: TableKeys };
  try {
    table = await describeStreamTable(dynamo, options.tableName);
  } catch (error) {
    dynamo.destroy();
    streams.destroy();
    throw error;
  }
  const { streamArn, keys } = table;
  const isMarker = (record: DynamoDBRecord) => markerIdOf(record, keys.partitionKey) !== undefined;

  const stopping = new AbortController();
  const settleWaiters = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();

  /** Invokes the handler with the batch's real records; markers pass straight through. */
  const deliver = async (batch: readonly DynamoDBRecord[]): Promise<BatchFailure | undefined> => {
    const visible = batch.filter((record) => !isMarker(record));
    if (visible.length === 0) return undefined;
    let failure: BatchFailure | undefined;
    try {
      // A fresh copy per invocation, as Lambda parses a fresh event: a handler that mutates its
      // event cannot change what a retry sees.
      const response = await options.handler({ Records: structuredClone(visible) }, localLambdaContext(settings.functionName));
      failure = batchFailure(visible.map(sequenceNumberOf), response);
    } catch (error) {
      failure = thrownFailure(error);
    }
    if (!failure) return undefined;
    const failedRecord = visible[failure.failedFrom];
    return { failedFrom: failedRecord ? batch.indexOf(failedRecord) : 0, error: failure.error };
  };

  const discard = async (records: readonly DynamoDBRecord[], error: Error): Promise<void> => {
    const visible = records.filter((record) => !isMarker(record));
    if (visible.length === 0 || !options.onFailure) return;
    try {
      await options.onFailure(structuredClone(visible), error);
    } catch (failure) {
      reportError(new Error('onFailure threw; the records are skipped all the same', { cause: failure }));
    }
  };

  const handled = (records: readonly DynamoDBRecord[]): void => {
    for (const record of records) {
      const id = markerIdOf(record, keys.partitionKey);
      if (id !== undefined && record.eventName === 'INSERT') settleWaiters.get(id)?.resolve();
    }
  };

  const started = new Set<string>();
  const finished = new Set<string>();
  const readers = new Map<ShardReader, Promise<void>>();
  let initialShards: ReadonlySet<string> | undefined;

  const startReader = (shard: ListedShard, startingPosition: StartingPosition) => {
    started.add(shard.shardId);
    const reader = new ShardReader({
      ...settings,
      client: streams,
      streamArn,
      shardId: shard.shardId,
      startingPosition,
      signal: stopping.signal,
      deliver,
      discard,
      handled,
      reportError,
      clock: options.clock ?? installedClock,
    });
    const running = reader
      .run()
      .then((done) => {
        if (!done) return;
        finished.add(shard.shardId);
        // Its children can start now rather than at the next discovery tick.
        void discover();
      })
      .catch((error: unknown) => reportError(asError(error)))
      .finally(() => readers.delete(reader));
    readers.set(reader, running);
  };

  const discoverOnce = async (): Promise<void> => {
    const shards = await describeShards(streams, streamArn, stopping.signal);
    if (stopping.signal.aborted) return;
    if (initialShards === undefined) {
      initialShards = new Set(shards.map((shard) => shard.shardId));
      // From LATEST, what closed shards hold is history: skip them, as Lambda starts at the tip.
      if (settings.startingPosition === 'LATEST') {
        for (const shard of shards.filter((listed) => listed.closed)) {
          started.add(shard.shardId);
          finished.add(shard.shardId);
        }
      }
    }
    for (const shard of shardsReadyToRead(shards, started, finished)) {
      startReader(shard, initialShards.has(shard.shardId) ? settings.startingPosition : 'TRIM_HORIZON');
    }
  };

  // Discoveries run one after another, never two at once, so no shard is started twice.
  let discovering: Promise<void> = Promise.resolve();
  const discover = (): Promise<void> => {
    discovering = discovering.then(discoverOnce).catch((error: unknown) => {
      if (!stopping.signal.aborted) reportError(asError(error));
    });
    return discovering;
  };

  await discover();
  await Promise.all([...readers.keys()].map((reader) => reader.ready));
  const discoveryLoop = (async () => {
    while (!stopping.signal.aborted) {
      await sleep(settings.shardDiscoveryIntervalMs, stopping.signal);
      if (!stopping.signal.aborted) await discover();
    }
  })();

  let stopped: Promise<void> | undefined;
  return {
    streamArn,

    async settle() {
      if (stopping.signal.aborted) throw new Error('The stream poller is stopped');
      const id = randomUUID();
      const key = markerKey(keys, id);
      const handledMarker = new Promise<void>((resolve, reject) => settleWaiters.set(id, { resolve, reject }));
      try {
        await dynamo.send(new PutItemCommand({ TableName: options.tableName, Item: key }));
        // An idle reader may be in its longest pause: the marker is read now rather than then.
        for (const reader of readers.keys()) reader.wake();
        await handledMarker;
      } finally {
        settleWaiters.delete(id);
        // Its REMOVE record is filtered out like the INSERT was; nothing needs to wait for it.
        await dynamo.send(new DeleteItemCommand({ TableName: options.tableName, Key: key })).catch(() => undefined);
      }
    },

    stop() {
      stopped ??= (async () => {
        stopping.abort();
        for (const waiter of settleWaiters.values()) waiter.reject(new Error('The stream poller was stopped before it settled'));
        await Promise.allSettled([discoveryLoop, discovering, ...readers.values()]);
        dynamo.destroy();
        streams.destroy();
      })();
      return stopped;
    },
  };
};
