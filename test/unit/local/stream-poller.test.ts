import { ExpiredIteratorException, InternalServerError } from '@aws-sdk/client-dynamodb-streams';
import { jest } from '@jest/globals';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { startStreamPoller, type StreamPoller, type StreamPollerOptions } from '../../../tools/local/stream-poller.js';
import { fakeStream, STREAM_ARN, type FakeStream } from './fake-stream.js';

/** Shard lineage and broken iterators, on a stream in memory (see fake-stream.ts). */
let stream: FakeStream;
let poller: Promise<StreamPoller> | undefined;

// Waits are for the poller's own timers, a few milliseconds each, unless the machine is busy.
jest.setTimeout(30_000);

beforeEach(() => {
  stream = fakeStream();
});

afterEach(async () => {
  await poller?.then((started) => started.stop()).catch(() => undefined);
  poller = undefined;
  stream.restore();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const until = async (condition: () => boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(5);
  }
};

/** Keys handled so far, each noted in `stream.calls` as it finishes. */
const start = (seen: string[], options: Partial<StreamPollerOptions> = {}): Promise<StreamPoller> => {
  poller = startStreamPoller({
    endpoint: 'http://localhost:1',
    tableName: 'fake',
    pollIntervalMs: 5,
    maximumBatchingWindowMs: 0,
    shardDiscoveryIntervalMs: 20,
    retryBaseDelayMs: 5,
    handler: async (event: DynamoDBStreamEvent) => {
      await sleep(10);
      for (const record of event.Records) seen.push(record.dynamodb?.Keys?.sk?.S ?? '');
      stream.calls.push(`handled ${event.Records.map((record) => record.dynamodb?.Keys?.sk?.S).join(',')}`);
    },
    ...options,
  });
  return poller;
};

describe('startStreamPoller, shard lineage', () => {
  it('reads a child shard only once its parent is read to the end and handled', async () => {
    // The child is listed first: order comes from ParentShardId, not from the listing.
    stream.addShard('shard-b', { parent: 'shard-a' });
    stream.addShard('shard-a', { closed: true });
    stream.write('shard-a', 'a1', 'a2', 'a3');
    stream.write('shard-b', 'b1', 'b2');
    const seen: string[] = [];
    await start(seen, { batchSize: 2 });
    await until(() => seen.length === 5);

    expect(seen).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
    const childStart = stream.calls.indexOf('GetShardIterator shard-b TRIM_HORIZON');
    expect(childStart).toBeGreaterThan(stream.calls.indexOf('handled a3'));
  });

  it('follows a rollover while running: the open shard closes and a child takes over', async () => {
    stream.addShard('shard-a');
    stream.write('shard-a', 'a1');
    const seen: string[] = [];
    await start(seen);
    await until(() => seen.length === 1);

    stream.write('shard-a', 'a2');
    stream.close('shard-a');
    stream.addShard('shard-b', { parent: 'shard-a' });
    stream.write('shard-b', 'b1');
    await until(() => seen.length === 3);

    expect(seen).toEqual(['a1', 'a2', 'b1']);
  });

  it('starts a child whose parent is no longer listed (trimmed after 24 hours)', async () => {
    stream.addShard('shard-b', { parent: 'shard-gone' });
    stream.write('shard-b', 'b1');
    const seen: string[] = [];
    await start(seen);
    await until(() => seen.length === 1);
    expect(seen).toEqual(['b1']);
  });

  it('from LATEST, skips closed shards and starts at the tip of the open one; children start from their beginning', async () => {
    stream.addShard('shard-a', { closed: true });
    stream.write('shard-a', 'old-a');
    stream.addShard('shard-b', { parent: 'shard-a' });
    stream.write('shard-b', 'old-b');
    const seen: string[] = [];
    await start(seen, { startingPosition: 'LATEST' });
    stream.write('shard-b', 'new-b');
    stream.close('shard-b');
    stream.addShard('shard-c', { parent: 'shard-b' });
    stream.write('shard-c', 'c1');
    await until(() => seen.length === 2);

    expect(seen).toEqual(['new-b', 'c1']);
    expect(stream.calls).not.toContainEqual(expect.stringMatching(/^GetShardIterator shard-a/));
  });
});

describe('startStreamPoller, broken iterators', () => {
  it('resumes right after the checkpoint when the iterator has expired, without reporting an error', async () => {
    stream.addShard('shard-a');
    const [first] = stream.write('shard-a', 'a1');
    const errors: Error[] = [];
    const seen: string[] = [];
    await start(seen, { onError: (error) => errors.push(error) });
    await until(() => seen.length === 1);

    stream.failNextGetRecords(new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} }));
    stream.write('shard-a', 'a2');
    await until(() => seen.length === 2);

    expect(seen).toEqual(['a1', 'a2']);
    expect(stream.calls).toContain(`GetShardIterator shard-a AFTER_SEQUENCE_NUMBER ${first}`);
    expect(errors).toEqual([]);
  });

  it('reports any other GetRecords error and carries on', async () => {
    stream.addShard('shard-a');
    stream.failNextGetRecords(new InternalServerError({ message: 'try again', $metadata: {} }));
    stream.write('shard-a', 'a1');
    const errors: Error[] = [];
    const seen: string[] = [];
    await start(seen, { onError: (error) => errors.push(error), retryMaxDelayMs: 10 });
    await until(() => seen.length === 1);

    expect(errors.map((error) => error.message)).toEqual(['try again']);
    expect(seen).toEqual(['a1']);
  });

  it('names the stream in every record it delivers', async () => {
    stream.addShard('shard-a');
    stream.write('shard-a', 'a1');
    const arns: (string | undefined)[] = [];
    poller = startStreamPoller({
      endpoint: 'http://localhost:1',
      tableName: 'fake',
      pollIntervalMs: 5,
      handler: async (event) => void arns.push(...event.Records.map((record) => record.eventSourceARN)),
    });
    const started = await poller;
    await until(() => arns.length === 1);
    expect(arns).toEqual([STREAM_ARN]);
    expect(started.streamArn).toBe(STREAM_ARN);
  });
});

describe('startStreamPoller, an idle shard', () => {
  it('polls less and less while nothing comes, down to the longest pause, and at once again when records come', async () => {
    stream.addShard('shard-a');
    const seen: string[] = [];
    await start(seen, { pollIntervalMs: 5, idlePollMaxMs: 200 });

    await sleep(1_000);
    // Unbounded, a 5 ms interval would poll about 200 times; doubling to 200 ms leaves about 11.
    expect(stream.emptyReads()).toBeLessThanOrEqual(20);
    expect(stream.emptyReads()).toBeGreaterThanOrEqual(3);

    stream.write('shard-a', 'a1');
    await until(() => seen.length === 1, 1_000);
    stream.write('shard-a', 'a2');
    await until(() => seen.length === 2, 1_000);
    expect(seen).toEqual(['a1', 'a2']);
  });

  it('settle() reads its marker at once rather than after the longest pause', async () => {
    stream.addShard('shard-a');
    const started = await start([], { pollIntervalMs: 5, idlePollMaxMs: 60_000 });
    // Pauses of 5, 10, ... 1280 ms take 2.55 s: settle comes early in a pause of 2.56 s.
    await sleep(2_600);

    const began = Date.now();
    await started.settle();
    expect(Date.now() - began).toBeLessThan(1_000);
  });
});

describe('startStreamPoller, options', () => {
  it.each([
    [{ batchSize: 0 }, /batchSize/],
    [{ batchSize: 10_001 }, /batchSize/],
    [{ maxRetryAttempts: -2 }, /maxRetryAttempts/],
  ])('refuses %j', async (options, message) => {
    await expect(start([], options)).rejects.toThrow(message);
  });
});
