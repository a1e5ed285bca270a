import { createHash } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createLocalFifoQueue, type FifoQueueOptions, type FifoSendEntry, type LocalFifoQueue } from '../../../tools/local/fifo-queue.js';

/** Every invocation's records, in the order the handler saw them. */
interface Recorder {
  readonly batches: SQSRecord[][];
  readonly bodies: () => string[];
}

const recorder = (): Recorder => {
  const batches: SQSRecord[][] = [];
  return { batches, bodies: () => batches.flat().map((record) => record.body) };
};

const entry = (body: string, groupId = 'g1', deduplicationId = body): FifoSendEntry => ({
  id: body.replace(/[^A-Za-z0-9_-]/g, '_'),
  body,
  groupId,
  deduplicationId,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const until = async (condition: () => boolean) => {
  while (!condition()) await sleep(2);
};

const queues: LocalFifoQueue[] = [];
const queue = (options: Partial<FifoQueueOptions> & Pick<FifoQueueOptions, 'handler'>): LocalFifoQueue => {
  const created = createLocalFifoQueue({ name: 'test-queue.fifo', visibilityTimeoutMs: 20, ...options });
  queues.push(created);
  return created;
};

afterEach(async () => {
  await Promise.all(queues.splice(0).map((created) => created.stop()));
});

/** A handler that records each batch, then answers as `answer` says for it. */
const recording =
  (seen: Recorder, answer: (records: SQSRecord[], call: number) => SQSBatchResponse | void | Promise<SQSBatchResponse | void> = () => undefined) =>
  async (event: SQSEvent) => {
    seen.batches.push(event.Records);
    return answer(event.Records, seen.batches.length);
  };

const failures = (...messageIds: string[]): SQSBatchResponse => ({ batchItemFailures: messageIds.map((itemIdentifier) => ({ itemIdentifier })) });

describe('createLocalFifoQueue', () => {
  it('hands the handler an SQSEvent in the shape Lambda gives', async () => {
    const seen = recorder();
    const fifo = queue({ handler: recording(seen) });
    const [sent] = await fifo.send([{ id: 'e1', body: '{"hello":"world"}', groupId: 'tenant-1', deduplicationId: 'd-1' }]);
    await fifo.settle();

    const record = seen.batches[0]?.[0];
    expect(record).toEqual({
      messageId: sent?.messageId,
      receiptHandle: expect.any(String),
      body: '{"hello":"world"}',
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d{13}$/),
        SenderId: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
        SequenceNumber: sent?.sequenceNumber,
        MessageGroupId: 'tenant-1',
        MessageDeduplicationId: 'd-1',
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update('{"hello":"world"}').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: expect.stringMatching(/^arn:aws:sqs:[^:]+:\d{12}:test-queue\.fifo$/),
      awsRegion: expect.any(String),
    });
    expect(sent?.md5OfMessageBody).toBe(record?.md5OfBody);
    expect(fifo.arn).toBe(record?.eventSourceARN);
  });

  it('numbers messages with increasing zero-padded sequence numbers whose string order is numeric order', async () => {
    const fifo = queue({ handler: async () => undefined });
    const results = [
      ...(await fifo.send(Array.from({ length: 10 }, (_, i) => entry(`m${i}`, `g${i % 3}`)))),
      ...(await fifo.send(Array.from({ length: 5 }, (_, i) => entry(`n${i}`)))),
    ];
    const numbers = results.map((result) => result.sequenceNumber);
    expect(numbers.every((number) => /^\d{20}$/.test(number))).toBe(true);
    expect([...numbers].sort()).toEqual(numbers);
    expect(numbers.map(BigInt)).toEqual([...numbers.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(new Set(results.map((result) => result.messageId)).size).toBe(results.length);
  });

  it('numbers the messages of a queue created later above those of an earlier one, as a queue does over its life', async () => {
    const earlier = queue({ handler: async () => undefined });
    const sent = await earlier.send(Array.from({ length: 10 }, (_, i) => entry(`m${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 2));
    const [later] = await queue({ handler: async () => undefined }).send([entry('n0')]);
    expect(BigInt(later!.sequenceNumber)).toBeGreaterThan(BigInt(sent.at(-1)!.sequenceNumber));
    expect(later!.sequenceNumber).toMatch(/^\d{20}$/);
  });

  describe('sending', () => {
    it('refuses more than 10 entries per call, as SendMessageBatch does, and enqueues none of them', async () => {
      const fifo = queue({ handler: async () => undefined });
      await expect(fifo.send(Array.from({ length: 11 }, (_, i) => entry(`m${i}`)))).rejects.toMatchObject({ name: 'TooManyEntriesInBatchRequest' });
      expect(fifo.depth()).toBe(0);
    });

    it.each([
      ['no entries', [], 'EmptyBatchRequest'],
      ['two entries with one id', [entry('a'), { ...entry('b'), id: 'a' }], 'BatchEntryIdsNotDistinct'],
      ['an invalid entry id', [{ ...entry('a'), id: 'not valid!' }], 'InvalidBatchEntryId'],
      ['an empty group id', [{ ...entry('a'), groupId: '' }], 'InvalidParameterValue'],
      ['an empty deduplication id', [{ ...entry('a'), deduplicationId: '' }], 'InvalidParameterValue'],
      ['an empty body', [{ ...entry('a'), body: '' }], 'InvalidParameterValue'],
      // SQS's documented character set and size, as AWS would refuse them
      ['a body holding U+FFFF', [{ ...entry('a'), body: '{"code":"A\uffff"}' }], 'InvalidMessageContents'],
      ['a body holding U+FFFE', [{ ...entry('a'), body: 'A\ufffe' }], 'InvalidMessageContents'],
      ['a body holding a lone surrogate', [{ ...entry('a'), body: 'A\ud800' }], 'InvalidMessageContents'],
      ['a body holding a NUL', [{ ...entry('a'), body: 'A\u0000' }], 'InvalidMessageContents'],
      ['a body one byte over 256 KiB', [{ ...entry('a'), body: 'x'.repeat(256 * 1024 + 1) }], 'InvalidParameterValue'],
      ['a call whose bodies total over 256 KiB', [entry('a'), entry('b')].map((e) => ({ ...e, body: 'x'.repeat(128 * 1024 + 1) })), 'BatchRequestTooLong'],
    ])('refuses %s', async (_, entries, code) => {
      const fifo = queue({ handler: async () => undefined });
      await expect(fifo.send(entries)).rejects.toMatchObject({ name: code });
      expect(fifo.depth()).toBe(0);
    });

    it('accepts a body of exactly 256 KiB holding tabs, line breaks and characters above the BMP', async () => {
      const fifo = queue({ handler: async () => undefined });
      const edge = '\t\r\n\ud83d\ude00\ufffd';
      const body = edge + 'x'.repeat(256 * 1024 - Buffer.byteLength(edge, 'utf8'));
      await expect(fifo.send([{ ...entry('a'), body }])).resolves.toHaveLength(1);
      await fifo.stop();
    });

    it('refuses a queue name without the .fifo suffix', () => {
      expect(() => createLocalFifoQueue({ name: 'plain', handler: async () => undefined })).toThrow(/\.fifo/);
    });

    it('accepts a duplicate within the deduplication window without enqueuing it again', async () => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen) });
      const [first] = await fifo.send([entry('one', 'g1', 'same-id')]);
      await fifo.settle();
      const [again] = await fifo.send([{ ...entry('one again', 'g2', 'same-id') }]);
      await fifo.settle();

      expect(first?.duplicate).toBe(false);
      expect(again).toMatchObject({ duplicate: true, messageId: first?.messageId, sequenceNumber: first?.sequenceNumber });
      expect(seen.bodies()).toEqual(['one']);
    });

    it('enqueues the same deduplication id again once the window has passed', async () => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen), deduplicationWindowMs: 30 });
      await fifo.send([entry('first', 'g1', 'same-id')]);
      await sleep(50);
      const [later] = await fifo.send([entry('later', 'g1', 'same-id')]);
      await fifo.settle();

      expect(later?.duplicate).toBe(false);
      expect(seen.bodies()).toEqual(['first', 'later']);
    });
  });

  describe('delivery', () => {
    it('delivers each group in send order, in batches of at most batchSize that mix groups as SQS does', async () => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen), batchSize: 3 });
      for (let i = 0; i < 4; i++) await fifo.send(Array.from({ length: 5 }, (_, j) => entry(`m${i * 5 + j}`, `g${(i * 5 + j) % 2}`)));
      await fifo.settle();

      expect(seen.batches.every((batch) => batch.length <= 3)).toBe(true);
      expect(seen.batches.some((batch) => new Set(batch.map((r) => r.attributes.MessageGroupId)).size > 1)).toBe(true);
      for (const group of ['g0', 'g1']) {
        const delivered = seen.batches.flat().filter((record) => record.attributes.MessageGroupId === group);
        const sequenceNumbers = delivered.map((record) => record.attributes.SequenceNumber ?? '');
        expect(sequenceNumbers).toEqual([...sequenceNumbers].sort());
        expect(delivered).toHaveLength(10);
      }
    });

    it('fills a batch with the messages of the group whose next message is oldest, then of the next group, each in order', async () => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen), maxConcurrency: 1 });
      await fifo.send([entry('a1', 'a'), entry('b1', 'b'), entry('a2', 'a'), entry('c1', 'c'), entry('b2', 'b')]);
      await fifo.settle();
      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([['a1', 'a2', 'b1', 'b2', 'c1']]);
    });

    it('stops a batch at batchSize, taking the first messages of the last group it reaches', async () => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen), batchSize: 4, maxConcurrency: 1 });
      await fifo.send([entry('a1', 'a'), entry('b1', 'b'), entry('b2', 'b'), entry('b3', 'b'), entry('b4', 'b'), entry('c1', 'c')]);
      await fifo.settle();
      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([
        ['a1', 'b1', 'b2', 'b3'],
        ['b4', 'c1'],
      ]);
    });

    it('leaves a group with a batch in flight out of the next batch, and its later messages wait for it', async () => {
      const seen = recorder();
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const fifo = queue({
        batchSize: 2,
        maxConcurrency: 2,
        handler: recording(seen, async (_, call) => {
          if (call === 1) await gate;
        }),
      });
      await fifo.send([entry('a1', 'a'), entry('a2', 'a')]);
      await until(() => seen.batches.length === 1);
      await fifo.send([entry('a3', 'a'), entry('b1', 'b')]);
      await until(() => seen.batches.length === 2);
      release();
      await fifo.settle();

      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([['a1', 'a2'], ['b1'], ['a3']]);
    });

    it('batches messages sent together, up to batchSize', async () => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen) });
      await fifo.send(Array.from({ length: 10 }, (_, i) => entry(`m${i}`)));
      await fifo.settle();
      expect(seen.batches.map((batch) => batch.length)).toEqual([10]);
    });

    it('has at most one batch of a group in flight, and several groups at once up to the concurrency cap', async () => {
      let inFlight = 0;
      let most = 0;
      const perGroup = new Map<string, number>();
      let overlapInGroup = false;
      const fifo = queue({
        batchSize: 1,
        maxConcurrency: 4,
        handler: async (event) => {
          const group = event.Records[0]?.attributes.MessageGroupId ?? '';
          if ((perGroup.get(group) ?? 0) > 0) overlapInGroup = true;
          perGroup.set(group, (perGroup.get(group) ?? 0) + 1);
          most = Math.max(most, ++inFlight);
          await sleep(15);
          inFlight--;
          perGroup.set(group, (perGroup.get(group) ?? 0) - 1);
        },
      });
      for (let i = 0; i < 3; i++) await fifo.send(Array.from({ length: 8 }, (_, g) => entry(`m${i}-${g}`, `g${g}`)));
      await fifo.settle();

      expect(most).toBe(4);
      expect(overlapInGroup).toBe(false);
    });

    it('serves the group whose next message is oldest first', async () => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen), batchSize: 1, maxConcurrency: 1 });
      await fifo.send([entry('a1', 'a'), entry('b1', 'b'), entry('a2', 'a'), entry('c1', 'c'), entry('b2', 'b')]);
      await fifo.settle();
      expect(seen.bodies()).toEqual(['a1', 'b1', 'a2', 'c1', 'b2']);
    });
  });

  describe('failures', () => {
    it('deletes the messages before a reported failure and redelivers the failed one and every later one of the batch, in order', async () => {
      const seen = recorder();
      const fifo = queue({
        handler: recording(seen, (records, call) => (call === 1 ? failures(records[2]?.messageId ?? '') : undefined)),
      });
      await fifo.send(['m1', 'm2', 'm3', 'm4', 'm5'].map((body) => entry(body)));
      await fifo.settle();

      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([
        ['m1', 'm2', 'm3', 'm4', 'm5'],
        ['m3', 'm4', 'm5'],
      ]);
      expect(seen.batches[1]?.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['2', '2', '2']);
      // Same message, new delivery: a new receipt handle, the first receive time kept.
      expect(seen.batches[1]?.[0]?.receiptHandle).not.toBe(seen.batches[0]?.[2]?.receiptHandle);
      expect(seen.batches[1]?.[0]?.attributes.ApproximateFirstReceiveTimestamp).toBe(seen.batches[0]?.[2]?.attributes.ApproximateFirstReceiveTimestamp);
    });

    it('retries from the earliest reported message when several are reported', async () => {
      const seen = recorder();
      const fifo = queue({
        handler: recording(seen, (records, call) => (call === 1 ? failures(records[3]?.messageId ?? '', records[1]?.messageId ?? '') : undefined)),
      });
      await fifo.send(['m1', 'm2', 'm3', 'm4'].map((body) => entry(body)));
      await fifo.settle();
      expect(seen.batches[1]?.map((record) => record.body)).toEqual(['m2', 'm3', 'm4']);
    });

    it('holds up the group until the failed messages are delivered again, after the visibility timeout', async () => {
      const seen = recorder();
      const times: number[] = [];
      const fifo = queue({
        visibilityTimeoutMs: 80,
        handler: recording(seen, (records, call) => {
          times.push(Date.now());
          return call === 1 ? failures(records[0]?.messageId ?? '') : undefined;
        }),
      });
      await fifo.send([entry('first')]);
      await until(() => seen.batches.length === 1);
      await fifo.send([entry('second')]);
      await fifo.settle();

      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([['first'], ['first', 'second']]);
      expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(75);
    });

    it('does not hold up the other groups while one waits to be retried', async () => {
      const seen = recorder();
      const fifo = queue({
        visibilityTimeoutMs: 300,
        handler: recording(seen, (records, call) => (call === 1 ? failures(records[0]?.messageId ?? '') : undefined)),
      });
      await fifo.send([entry('a1', 'a')]);
      await until(() => seen.batches.length === 1);
      await fifo.send([entry('b1', 'b')]);
      await fifo.settle();
      expect(seen.bodies()).toEqual(['a1', 'b1', 'a1']);
    });

    it('redelivers the whole batch when the handler throws', async () => {
      const seen = recorder();
      const fifo = queue({
        handler: recording(seen, (_, call) => {
          if (call === 1) throw new Error('boom');
        }),
      });
      await fifo.send(['m1', 'm2', 'm3'].map((body) => entry(body)));
      await fifo.settle();
      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([
        ['m1', 'm2', 'm3'],
        ['m1', 'm2', 'm3'],
      ]);
    });

    it.each([
      ['a message id not in the batch', { batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] }],
      ['an empty item identifier', { batchItemFailures: [{ itemIdentifier: '' }] }],
    ])('treats %s as a failure of the whole batch, as Lambda does', async (_, response) => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen, (__, call) => (call === 1 ? response : undefined)) });
      await fifo.send(['m1', 'm2'].map((body) => entry(body)));
      await fifo.settle();
      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([
        ['m1', 'm2'],
        ['m1', 'm2'],
      ]);
    });

    it('treats an empty batchItemFailures list as success', async () => {
      const seen = recorder();
      const fifo = queue({ handler: recording(seen, () => ({ batchItemFailures: [] })) });
      await fifo.send(['m1', 'm2'].map((body) => entry(body)));
      await fifo.settle();
      expect(seen.batches).toHaveLength(1);
    });

    it("redelivers a failed group's messages from its first reported failure, and deletes the other groups' messages of the batch", async () => {
      const seen = recorder();
      const fifo = queue({
        maxConcurrency: 1,
        handler: recording(seen, (records, call) => (call === 1 ? failures(records.find((record) => record.body === 'a1')?.messageId ?? '') : undefined)),
      });
      await fifo.send([entry('a1', 'a'), entry('b1', 'b'), entry('a2', 'a'), entry('b2', 'b')]);
      await fifo.settle();

      // a2 was not reported: it goes back all the same, behind a1 (the local queue keeps the group's order).
      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([
        ['a1', 'a2', 'b1', 'b2'],
        ['a1', 'a2'],
      ]);
    });

    it('redelivers every group of a mixed batch when the handler throws', async () => {
      const seen = recorder();
      const fifo = queue({
        maxConcurrency: 1,
        handler: recording(seen, (_, call) => {
          if (call === 1) throw new Error('boom');
        }),
      });
      await fifo.send([entry('a1', 'a'), entry('b1', 'b')]);
      await fifo.settle();
      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([
        ['a1', 'b1'],
        ['a1', 'b1'],
      ]);
    });

    /** Fails every batch from the poison message on, as a FIFO consumer must. */
    const poisoned = (seen: Recorder) =>
      recording(seen, (records) => {
        const poison = records.findIndex((record) => record.body === 'poison');
        return poison < 0 ? undefined : failures(...records.slice(poison).map((record) => record.messageId));
      });

    it('moves a message to the dead letters after maxReceiveCount deliveries, then goes on with its group', async () => {
      const seen = recorder();
      const letters: string[] = [];
      const fifo = queue({
        maxReceiveCount: 3,
        batchSize: 1,
        handler: poisoned(seen),
        onDeadLetter: (letter) => {
          letters.push(`${letter.record.body}@${letter.record.attributes.ApproximateReceiveCount}`);
        },
      });
      await fifo.send([entry('ok-1'), entry('poison'), entry('ok-2')]);
      await fifo.settle();

      expect(seen.bodies()).toEqual(['ok-1', 'poison', 'poison', 'poison', 'ok-2']);
      expect(letters).toEqual(['poison@3']);
      expect(fifo.deadLetters()).toEqual([{ record: expect.objectContaining({ body: 'poison' }), error: expect.any(Error) }]);
      expect(fifo.depth()).toBe(0);
    });

    it('dead-letters the messages batched behind a poison message too, once their own receive count runs out (as SQS does)', async () => {
      const seen = recorder();
      const fifo = queue({ maxReceiveCount: 3, handler: poisoned(seen) });
      await fifo.send([entry('ok-1'), entry('poison'), entry('behind')]);
      await fifo.settle();

      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([
        ['ok-1', 'poison', 'behind'],
        ['poison', 'behind'],
        ['poison', 'behind'],
      ]);
      expect(fifo.deadLetters().map((letter) => letter.record.body)).toEqual(['poison', 'behind']);
    });

    /** Fails the poison message and the later messages of its group only (Powertools' `skipGroupOnError`). */
    const poisonedGroup = (seen: Recorder) =>
      recording(seen, (records) => {
        const poison = records.find((record) => record.body === 'poison');
        const group = poison?.attributes.MessageGroupId;
        const from = poison ? records.indexOf(poison) : records.length;
        return failures(...records.filter((record, i) => i >= from && record.attributes.MessageGroupId === group).map((record) => record.messageId));
      });

    it("dead-letters a poison message with the later messages of its own group, and the other groups' messages batched behind it go through once", async () => {
      const seen = recorder();
      const fifo = queue({ maxReceiveCount: 3, maxConcurrency: 1, handler: poisonedGroup(seen) });
      await fifo.send([entry('poison', 'a'), entry('b1', 'b'), entry('a-behind', 'a'), entry('b2', 'b')]);
      await fifo.settle();

      expect(seen.batches.map((batch) => batch.map((record) => record.body))).toEqual([
        ['poison', 'a-behind', 'b1', 'b2'],
        ['poison', 'a-behind'],
        ['poison', 'a-behind'],
      ]);
      expect(fifo.deadLetters().map((letter) => letter.record.body)).toEqual(['poison', 'a-behind']);
    });

    it('dead-letters the other groups batched behind a poison message too when the consumer fails every later message of the batch', async () => {
      const seen = recorder();
      const fifo = queue({ maxReceiveCount: 1, maxConcurrency: 1, handler: poisoned(seen) });
      await fifo.send([entry('poison', 'a'), entry('b1', 'b')]);
      await fifo.settle();
      expect(fifo.deadLetters().map((letter) => letter.record.body)).toEqual(['poison', 'b1']);
    });

    it('dead-letters with the error the handler threw', async () => {
      const fifo = queue({
        maxReceiveCount: 1,
        handler: async () => {
          throw new Error('cannot process');
        },
      });
      await fifo.send([entry('m1')]);
      await fifo.settle();
      expect(fifo.deadLetters().map((letter) => letter.error.message)).toEqual(['cannot process']);
    });
  });

  describe('settle, depth and stop', () => {
    it('settles at once when nothing is queued', async () => {
      const fifo = queue({ handler: async () => undefined });
      await expect(fifo.settle()).resolves.toBeUndefined();
    });

    it('settles only after retries waiting for their visibility timeout are delivered', async () => {
      const seen = recorder();
      const fifo = queue({
        visibilityTimeoutMs: 60,
        handler: recording(seen, (records, call) => (call < 3 ? failures(records[0]?.messageId ?? '') : undefined)),
      });
      await fifo.send([entry('m1'), entry('m2')]);
      expect(fifo.depth()).toBe(2);
      await fifo.settle();
      expect(seen.batches).toHaveLength(3);
      expect(fifo.depth()).toBe(0);
    });

    it('counts in depth the messages in flight and those waiting to be retried', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const fifo = queue({ handler: () => gate, batchSize: 2 });
      await fifo.send([entry('m1'), entry('m2'), entry('m3')]);
      await sleep(10);
      expect(fifo.depth()).toBe(3);
      release();
      await fifo.settle();
      expect(fifo.depth()).toBe(0);
    });

    it('waits on stop for the batch in flight, then delivers nothing more and refuses sends', async () => {
      const seen = recorder();
      let finished = false;
      const fifo = queue({
        batchSize: 1,
        handler: async (event) => {
          seen.batches.push(event.Records);
          await sleep(30);
          finished = true;
        },
      });
      await fifo.send([entry('m1'), entry('m2')]);
      await until(() => seen.batches.length === 1);
      const settled = fifo.settle();
      await fifo.stop();

      expect(finished).toBe(true);
      expect(seen.bodies()).toEqual(['m1']);
      await expect(settled).rejects.toThrow(/stopped with 1 messages left/);
      await expect(fifo.send([entry('m3')])).rejects.toMatchObject({ name: 'QueueDoesNotExist' });
      await sleep(40);
      expect(seen.bodies()).toEqual(['m1']);
    });

    it('leaves no timer behind when stopped while a retry is pending', async () => {
      const timers = () => process.getActiveResourcesInfo().filter((type) => type === 'Timeout' || type === 'Immediate').length;
      const before = timers();
      let delivered = false;
      const fifo = queue({
        visibilityTimeoutMs: 60_000,
        handler: async (event) => {
          delivered = true;
          return failures(event.Records[0]?.messageId ?? '');
        },
      });
      await fifo.send([entry('m1')]);
      await until(() => delivered);
      // The failed batch's retry is scheduled once the handler's answer is processed (later on a busy machine).
      await until(() => timers() === before + 1);
      await fifo.stop();
      expect(timers()).toBe(before);
      expect(fifo.depth()).toBe(1);
    });
  });
});
