import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  waitUntilTableExists,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { createTableInput, deleteTable } from '../../tools/local/create-table.js';
import { createLocalDynamoClient } from '../../tools/local/dynamodb-local.js';
import { SETTLE_MARKER_PREFIX, startStreamPoller, type StreamPoller, type StreamPollerOptions } from '../../tools/local/stream-poller.js';
import { scanTable } from '../support/table-snapshot.js';

/** The poller against the run's DynamoDB Local, each test on a table of its own with a stream. */
let dynamo: DynamoDBClient;
let endpoint: string;
let tableName: string;
/** Every poller started, stopped after each test even if the test gave up waiting for it to start. */
const pollers: Promise<StreamPoller>[] = [];

// Each test takes well under a second; on a machine busy with other test runs, creating a table
// with nine indexes alone can take seconds.
jest.setTimeout(30_000);

beforeAll(() => {
  endpoint = process.env.DYNAMODB_ENDPOINT ?? '';
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set: run this test in the jest "integration" project');
  dynamo = createLocalDynamoClient(endpoint);
});

afterAll(() => dynamo.destroy());

beforeEach(async () => {
  tableName = `stream-${randomUUID()}`;
  await dynamo.send(
    new CreateTableCommand({ ...createTableInput(tableName), StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }),
  );
  await waitUntilTableExists({ client: dynamo, maxWaitTime: 60, minDelay: 1 }, { TableName: tableName });
});

afterEach(async () => {
  await Promise.allSettled(pollers.splice(0).map(async (starting) => (await starting).stop()));
  await deleteTable(dynamo, tableName);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Handler = StreamPollerOptions['handler'];

const start = async (handler: Handler, options: Partial<StreamPollerOptions> = {}): Promise<StreamPoller> => {
  const starting = startStreamPoller({ endpoint, tableName, handler, retryBaseDelayMs: 20, retryMaxDelayMs: 80, ...options });
  pollers.push(starting);
  return starting;
};

/** A handler that keeps each event, then answers as `answer` says for it. */
const recording =
  (events: DynamoDBStreamEvent[], answer: (event: DynamoDBStreamEvent, call: number) => DynamoDBBatchResponse | void = () => undefined): Handler =>
  async (event) => {
    events.push(event);
    return answer(event, events.length);
  };

const put = (sk: string, extra: Record<string, AttributeValue> = {}) =>
  dynamo.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: 'ITEM' }, sk: { S: sk }, ...extra } }));

/** Writes items `item-00` ... in one or more batches, before any poller reads them. */
const putMany = async (count: number) => {
  const keys = Array.from({ length: count }, (_, i) => `item-${String(i).padStart(2, '0')}`);
  for (let i = 0; i < keys.length; i += 25) {
    const chunk = keys.slice(i, i + 25);
    await dynamo.send(
      new BatchWriteItemCommand({ RequestItems: { [tableName]: chunk.map((sk) => ({ PutRequest: { Item: { pk: { S: 'ITEM' }, sk: { S: sk } } } })) } }),
    );
  }
  return keys;
};

const keysOf = (records: readonly DynamoDBRecord[]) => records.map((record) => record.dynamodb?.Keys?.sk?.S);
const batchesOf = (events: readonly DynamoDBStreamEvent[]) => events.map((event) => keysOf(event.Records));
const failure = (record: DynamoDBRecord | undefined): DynamoDBBatchResponse => ({
  batchItemFailures: [{ itemIdentifier: record?.dynamodb?.SequenceNumber ?? '' }],
});

describe('startStreamPoller', () => {
  it("delivers an item's insert, update and delete in order, as Lambda's DynamoDBRecord", async () => {
    const events: DynamoDBStreamEvent[] = [];
    const poller = await start(recording(events));
    await put('a', { bytes: { B: new Uint8Array([1, 2, 3]) }, nested: { M: { list: { L: [{ N: '1' }, { SS: ['x'] }] } } } });
    await dynamo.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { pk: { S: 'ITEM' }, sk: { S: 'a' } },
        UpdateExpression: 'SET price = :price',
        ExpressionAttributeValues: { ':price': { N: '12.5' } },
      }),
    );
    await dynamo.send(new DeleteItemCommand({ TableName: tableName, Key: { pk: { S: 'ITEM' }, sk: { S: 'a' } } }));
    await poller.settle();

    const records = events.flatMap((event) => event.Records);
    expect(records.map((record) => record.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    const sequenceNumbers = records.map((record) => BigInt(record.dynamodb?.SequenceNumber ?? '0'));
    expect(sequenceNumbers).toEqual([...sequenceNumbers].sort((a, b) => (a < b ? -1 : 1)));

    const image = { pk: { S: 'ITEM' }, sk: { S: 'a' }, bytes: { B: 'AQID' }, nested: { M: { list: { L: [{ N: '1' }, { SS: ['x'] }] } } } };
    expect(records[1]).toEqual({
      eventID: expect.any(String),
      eventName: 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: expect.any(String),
      dynamodb: {
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { pk: { S: 'ITEM' }, sk: { S: 'a' } },
        NewImage: { ...image, price: { N: '12.5' } },
        OldImage: image,
        SequenceNumber: expect.stringMatching(/^\d+$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
      eventSourceARN: poller.streamArn,
    });
    // Epoch seconds, as in Lambda's event (DynamoDB Local rounds them down to the minute).
    expect(Math.abs((records[1]?.dynamodb?.ApproximateCreationDateTime ?? 0) - Date.now() / 1000)).toBeLessThan(120);
    expect(records[0]?.dynamodb).not.toHaveProperty('OldImage');
    expect(records[2]?.dynamodb).not.toHaveProperty('NewImage');
    // The event is plain JSON, as Lambda parses it: no Date, no Uint8Array.
    expect(JSON.parse(JSON.stringify(events))).toEqual(events);
  });

  it('delivers batches of at most batchSize records, in order', async () => {
    const keys = await putMany(25);
    const events: DynamoDBStreamEvent[] = [];
    const poller = await start(recording(events), { batchSize: 10 });
    await poller.settle();

    expect(events.map((event) => event.Records.length)).toEqual([10, 10, 5]);
    expect(batchesOf(events).flat()).toEqual(keys);
  });

  it('gathers the records written within the batching window into one batch', async () => {
    const events: DynamoDBStreamEvent[] = [];
    // Wide enough for three writes on a busy machine.
    const poller = await start(recording(events), { maximumBatchingWindowMs: 1_500 });
    for (const sk of ['a', 'b', 'c']) {
      await put(sk);
      await sleep(30);
    }
    await poller.settle();
    expect(batchesOf(events)).toEqual([['a', 'b', 'c']]);
  });

  it('retries a partly failed batch from the failed record on, after checkpointing the records before it', async () => {
    await putMany(5);
    const events: DynamoDBStreamEvent[] = [];
    const poller = await start(
      recording(events, (event, call) => (call === 1 ? failure(event.Records[2]) : undefined)),
      { batchSize: 5 },
    );
    await poller.settle();

    expect(batchesOf(events)).toEqual([
      ['item-00', 'item-01', 'item-02', 'item-03', 'item-04'],
      ['item-02', 'item-03', 'item-04'],
    ]);
  });

  it('retries from the lowest sequence number reported', async () => {
    await putMany(4);
    const events: DynamoDBStreamEvent[] = [];
    const answer = (event: DynamoDBStreamEvent, call: number): DynamoDBBatchResponse | void =>
      call === 1 ? { batchItemFailures: [failure(event.Records[3]), failure(event.Records[1])].flatMap((f) => f.batchItemFailures) } : undefined;
    const poller = await start(recording(events, answer));
    await poller.settle();
    expect(batchesOf(events)[1]).toEqual(['item-01', 'item-02', 'item-03']);
  });

  it('retries the whole batch when the handler throws, with a growing backoff', async () => {
    await putMany(3);
    const events: DynamoDBStreamEvent[] = [];
    const times: number[] = [];
    const poller = await start(
      async (event) => {
        events.push(event);
        times.push(Date.now());
        if (events.length < 3) throw new Error('not yet');
      },
      { retryBaseDelayMs: 100, retryMaxDelayMs: 1_000 },
    );
    await poller.settle();

    expect(batchesOf(events)).toEqual([
      ['item-00', 'item-01', 'item-02'],
      ['item-00', 'item-01', 'item-02'],
      ['item-00', 'item-01', 'item-02'],
    ]);
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(95);
    expect((times[2] ?? 0) - (times[1] ?? 0)).toBeGreaterThanOrEqual(195);
  });

  it('hands each attempt a fresh event, so a handler that mutates it cannot change the retry', async () => {
    await putMany(1);
    const seen: string[] = [];
    const poller = await start(async (event) => {
      const record = event.Records[0];
      seen.push(record?.dynamodb?.Keys?.sk?.S ?? '');
      if (record?.dynamodb?.Keys?.sk) record.dynamodb.Keys.sk = { S: 'mutated' };
      if (seen.length === 1) throw new Error('retry me');
    });
    await poller.settle();
    expect(seen).toEqual(['item-00', 'item-00']);
  });

  it('sends the failing records to onFailure once their retries are exhausted, and goes on', async () => {
    await putMany(3);
    const events: DynamoDBStreamEvent[] = [];
    const failed: { keys: (string | undefined)[]; error: string }[] = [];
    const poller = await start(
      recording(events, (event) => {
        const poison = event.Records.find((record) => record.dynamodb?.Keys?.sk?.S === 'item-01');
        return poison ? failure(poison) : undefined;
      }),
      { maxRetryAttempts: 2, onFailure: (records, error) => void failed.push({ keys: keysOf(records), error: error.message }) },
    );
    await poller.settle();
    await put('after');
    await poller.settle();

    expect(batchesOf(events)).toEqual([['item-00', 'item-01', 'item-02'], ['item-01', 'item-02'], ['item-01', 'item-02'], ['after']]);
    // As Lambda discards it: the retried batch, from the failed record to its end.
    expect(failed).toEqual([{ keys: ['item-01', 'item-02'], error: expect.stringContaining('reported') }]);
  });

  it('gives no retry with maxRetryAttempts 0', async () => {
    await putMany(1);
    const failed: DynamoDBRecord[][] = [];
    let calls = 0;
    const poller = await start(
      async () => {
        calls++;
        throw new Error('always');
      },
      { maxRetryAttempts: 0, onFailure: (records) => void failed.push(records) },
    );
    await poller.settle();
    expect(calls).toBe(1);
    expect(failed.map(keysOf)).toEqual([['item-00']]);
  });

  describe('settle', () => {
    it('resolves only once the handler has finished with every earlier write', async () => {
      let handled = 0;
      const poller = await start(
        async (event) => {
          await sleep(50);
          handled += event.Records.length;
        },
        { batchSize: 2 },
      );
      await putMany(7);
      await poller.settle();
      expect(handled).toBe(7);
    });

    it('never shows the handler its marker records, and deletes the marker item', async () => {
      const events: DynamoDBStreamEvent[] = [];
      const poller = await start(recording(events));
      await poller.settle();
      await put('a');
      await poller.settle();
      await poller.settle();
      await sleep(200);

      expect(batchesOf(events)).toEqual([['a']]);
      const markers = [...(await scanTable(tableName)).keys()].filter((key) => key.startsWith(SETTLE_MARKER_PREFIX));
      expect(markers).toEqual([]);
    });

    it('resolves when the earlier records went to onFailure', async () => {
      const failed: DynamoDBRecord[][] = [];
      const poller = await start(
        async () => {
          throw new Error('always');
        },
        { maxRetryAttempts: 1, onFailure: (records) => void failed.push(records) },
      );
      await put('a');
      await poller.settle();
      expect(failed.map(keysOf)).toEqual([['a']]);
    });

    it('is refused once the poller is stopped', async () => {
      const poller = await start(async () => undefined);
      await poller.stop();
      await expect(poller.settle()).rejects.toThrow(/stopped/);
    });
  });

  it('waits on stop for the invocation in flight, then delivers nothing more', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    let finished = 0;
    const poller = await start(async () => {
      started++;
      await gate;
      finished++;
    });
    await put('a');
    while (started === 0) await sleep(10);

    let stopped = false;
    const stopping = poller.stop().then(() => {
      stopped = true;
    });
    await sleep(100);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(1);

    await put('b');
    await sleep(200);
    expect(started).toBe(1);
  });

  it('leaves no timer or socket of its own once stopped', async () => {
    const handles = () =>
      process
        .getActiveResourcesInfo()
        .filter((type) => ['Timeout', 'Immediate', 'TCPSocketWrap'].includes(type))
        .sort();
    const before = handles();
    const poller = await start(async () => undefined);
    await put('a');
    await poller.settle();
    await poller.stop();
    // A request cut short by stop() closes its socket a moment later.
    for (let waited = 0; handles().length > before.length && waited < 2_000; waited += 10) await sleep(10);
    // At most as many: a timer of an earlier test may have run out meanwhile.
    expect(handles().length).toBeLessThanOrEqual(before.length);
  });

  it('starts at the tip of the stream from LATEST', async () => {
    await put('before');
    const events: DynamoDBStreamEvent[] = [];
    const poller = await start(recording(events), { startingPosition: 'LATEST' });
    await put('after');
    await poller.settle();
    expect(batchesOf(events).flat()).toEqual(['after']);
  });

  it('refuses a table without a stream', async () => {
    const plain = `plain-${randomUUID()}`;
    const { StreamSpecification: _stream, ...withoutStream } = createTableInput(plain);
    await dynamo.send(new CreateTableCommand(withoutStream));
    try {
      const starting = startStreamPoller({ endpoint, tableName: plain, handler: async () => undefined });
      pollers.push(starting);
      await expect(starting).rejects.toThrow(/has no stream/);
    } finally {
      await deleteTable(dynamo, plain);
    }
  });
});
