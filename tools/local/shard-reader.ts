/**
 * Reads one shard of a DynamoDB stream the way Lambda's event source mapping does: in order,
 * one batch in flight at a time, a batch retried (after a backoff) from its first failed record,
 * and discarded once the record has had its retries, so that the shard moves on.
 *
 * The checkpoint is the sequence number of the last record handled (delivered successfully, or
 * discarded). Records read but not yet handled wait in `buffer`; when the iterator breaks (it
 * expires after 15 minutes unused, for instance when the machine sleeps) the buffer is dropped
 * and reading resumes right after the checkpoint, so no record is skipped or handled twice.
 */
import {
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ResourceNotFoundException,
  TrimmedDataAccessException,
  type DynamoDBStreamsClient,
  type GetShardIteratorCommandInput,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import type { BatchFailure } from './batch-failures.js';
import { sleep } from './sleep.js';
import { sequenceNumberOf, toLambdaRecord } from './stream-records.js';
import type { Clock } from '../../lambdas/config/clock.js';

/** GetRecords returns at most this many records per call. */
const GET_RECORDS_LIMIT = 1000;

export type StartingPosition = 'TRIM_HORIZON' | 'LATEST';

export interface ShardReaderOptions {
  readonly client: DynamoDBStreamsClient;
  readonly streamArn: string;
  readonly shardId: string;
  readonly startingPosition: StartingPosition;
  readonly batchSize: number;
  readonly maximumBatchingWindowMs: number;
  readonly pollIntervalMs: number;
  /** The longest pause while GetRecords keeps finding nothing (the pause doubles up to it). */
  readonly idlePollMaxMs: number;
  /** Retries after the first attempt; -1 retries until the record is handled. */
  readonly maxRetryAttempts: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
  readonly signal: AbortSignal;
  /** Invokes the handler with `batch`; resolves to the failure, if any (never rejects). */
  readonly deliver: (batch: readonly DynamoDBRecord[]) => Promise<BatchFailure | undefined>;
  /** Records whose retries are exhausted, before they are skipped. */
  readonly discard: (records: readonly DynamoDBRecord[], error: Error) => Promise<void>;
  /** Records now behind the checkpoint, in order. */
  readonly handled: (records: readonly DynamoDBRecord[]) => void;
  readonly reportError: (error: Error) => void;
  /** The time of the batching window and the retry backoff. */
  readonly clock: Clock;
}

const isError = (error: unknown, type: abstract new (...args: never[]) => Error): boolean =>
  error instanceof type || (error instanceof Error && error.name === type.name);

export class ShardReader {
  private iterator: string | undefined;
  /** GetRecords answered without a next iterator: the shard is closed and read to its end. */
  private ended = false;
  private buffer: DynamoDBRecord[] = [];
  private bufferedSince = 0;
  private checkpoint: string | undefined;
  /** Before the first checkpoint, where to resume after a broken iterator (from LATEST, say). */
  private firstRead: string | undefined;
  /** Invocations that included the record at the head of the buffer. */
  private headAttempts = 0;
  private retryAt = 0;
  /** The next pause of an idle shard. */
  private idleDelay: number;
  /** Aborted by `wake()` to cut an idle pause short. */
  private nap: AbortController | undefined;
  private signalReady: () => void = () => undefined;
  /** Resolves once the reader holds its first iterator (or failed to get one), so that LATEST means "from now on". */
  readonly ready = new Promise<void>((resolve) => {
    this.signalReady = resolve;
  });

  constructor(private readonly options: ShardReaderOptions) {
    this.idleDelay = options.pollIntervalMs;
  }

  /** Reads again now, if idle, and at the short interval until the shard is idle again. */
  wake(): void {
    this.idleDelay = this.options.pollIntervalMs;
    this.nap?.abort();
  }

  /** Resolves `true` once the shard is read to its end and handled, `false` when stopped. */
  async run(): Promise<boolean> {
    try {
      return await this.readToEnd();
    } finally {
      this.signalReady();
    }
  }

  private async readToEnd(): Promise<boolean> {
    const { signal, batchSize, pollIntervalMs } = this.options;
    while (!signal.aborted) {
      if (!this.ended && this.buffer.length < batchSize) {
        const gone = await this.fetch();
        if (gone) return true;
      }
      if (signal.aborted) break;
      if (this.buffer.length === 0) {
        if (this.ended) return true;
        await this.pauseWhileIdle();
        continue;
      }
      this.idleDelay = pollIntervalMs;
      const wait = this.waitBeforeInvoking(this.options.clock.now());
      if (wait > 0) {
        // Short naps rather than one long one: the window may fill up meanwhile.
        await sleep(Math.min(wait, pollIntervalMs), signal);
        continue;
      }
      await this.invoke();
    }
    return false;
  }

  /** Sleeps the idle pause, then doubles it (up to `idlePollMaxMs`); `wake()` ends it early. */
  private async pauseWhileIdle(): Promise<void> {
    const { signal, idlePollMaxMs } = this.options;
    if (signal.aborted) return;
    const nap = new AbortController();
    this.nap = nap;
    const delay = this.idleDelay;
    this.idleDelay = Math.min(delay * 2, idlePollMaxMs);
    // A listener added and removed each pause, not AbortSignal.any: `npm start` pauses several
    // times a second for hours, and nothing of a pause should outlive it.
    const stop = () => nap.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await sleep(delay, nap.signal);
    } finally {
      signal.removeEventListener('abort', stop);
      this.nap = undefined;
    }
  }

  /** Milliseconds until the batch may go: after a retry's backoff and, unless full, the batching window. */
  private waitBeforeInvoking(now: number): number {
    const backoff = this.retryAt - now;
    const full = this.buffer.length >= this.options.batchSize || this.ended;
    const window = full ? 0 : this.bufferedSince + this.options.maximumBatchingWindowMs - now;
    return Math.max(backoff, window, 0);
  }

  /** Reads what the shard has; resolves `true` when the shard no longer exists. */
  private async fetch(): Promise<boolean> {
    const { client, streamArn, signal, batchSize } = this.options;
    try {
      if (this.iterator === undefined) {
        this.iterator = await this.acquireIterator();
        this.signalReady();
        // No iterator for a position: a closed shard has nothing after it.
        if (this.iterator === undefined) {
          this.ended = true;
          return false;
        }
      }
      const output = await client.send(
        new GetRecordsCommand({ ShardIterator: this.iterator, Limit: Math.min(GET_RECORDS_LIMIT, batchSize - this.buffer.length) }),
        { abortSignal: signal },
      );
      const records = (output.Records ?? []).map((record) => toLambdaRecord(record, streamArn));
      if (records.length > 0 && this.buffer.length === 0) this.bufferedSince = this.options.clock.now();
      this.buffer.push(...records);
      this.iterator = output.NextShardIterator;
      if (this.iterator === undefined) this.ended = true;
      return false;
    } catch (error) {
      this.signalReady();
      if (signal.aborted) return false;
      const head = this.buffer[0];
      if (this.checkpoint === undefined && head) this.firstRead ??= sequenceNumberOf(head);
      this.iterator = undefined;
      this.buffer = [];
      // A shard past the stream's retention is gone with its records: nothing left to read.
      if (isError(error, ResourceNotFoundException)) {
        this.options.reportError(new Error(`Shard ${this.options.shardId} no longer exists`, { cause: error }));
        return true;
      }
      if (!isError(error, ExpiredIteratorException)) {
        this.options.reportError(error instanceof Error ? error : new Error(String(error)));
        await sleep(this.options.retryMaxDelayMs, signal);
      }
      return false;
    }
  }

  /**
   * Right after the checkpoint; before the first checkpoint, at the first record read or else the
   * starting position. A position older than the stream's retention falls back to the oldest
   * record left, as Lambda does.
   */
  private async acquireIterator(): Promise<string | undefined> {
    const { client, streamArn, shardId, signal, startingPosition } = this.options;
    const from = (input: Pick<GetShardIteratorCommandInput, 'ShardIteratorType' | 'SequenceNumber'>) =>
      client.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ...input }), { abortSignal: signal });
    const position: Pick<GetShardIteratorCommandInput, 'ShardIteratorType' | 'SequenceNumber'> =
      this.checkpoint !== undefined
        ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: this.checkpoint }
        : this.firstRead !== undefined
          ? { ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: this.firstRead }
          : { ShardIteratorType: startingPosition };
    try {
      return (await from(position)).ShardIterator;
    } catch (error) {
      if (position.SequenceNumber === undefined || !isError(error, TrimmedDataAccessException)) throw error;
      return (await from({ ShardIteratorType: 'TRIM_HORIZON' })).ShardIterator;
    }
  }

  private async invoke(): Promise<void> {
    const { maxRetryAttempts, retryBaseDelayMs, retryMaxDelayMs } = this.options;
    const batch = this.buffer.slice(0, this.options.batchSize);
    const failure = await this.options.deliver(batch);
    if (!failure) {
      this.advance(batch.length);
      return;
    }
    // The record the retry starts from was in this invocation: its first attempt, or one more.
    const attempts = failure.failedFrom === 0 ? this.headAttempts + 1 : 1;
    this.advance(failure.failedFrom);
    this.headAttempts = attempts;
    if (maxRetryAttempts >= 0 && attempts > maxRetryAttempts) {
      // As Lambda does, everything from the failed record to the end of the batch is skipped.
      const discarded = batch.slice(failure.failedFrom);
      await this.options.discard(discarded, failure.error);
      this.advance(discarded.length);
      return;
    }
    this.retryAt = this.options.clock.now() + Math.min(retryMaxDelayMs, retryBaseDelayMs * 2 ** (attempts - 1));
  }

  /** Moves the checkpoint past the first `count` buffered records. */
  private advance(count: number): void {
    if (count === 0) return;
    const records = this.buffer.splice(0, count);
    const last = records[records.length - 1];
    if (last) this.checkpoint = sequenceNumberOf(last);
    this.headAttempts = 0;
    this.retryAt = 0;
    this.options.handled(records);
  }
}
