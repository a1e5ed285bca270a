import type { SQSEvent } from 'aws-lambda';
import { createLocalFifoQueue, type LocalFifoQueue } from '../../../tools/local/fifo-queue.js';

describe("the local FIFO queue's changeVisibility", () => {
  it("keeps a failed message, and its group, invisible as long as its handler asked, instead of the queue's timeout", async () => {
    // Prepare
    const deliveredAt: [string, number][] = [];
    let first = true;
    const queue: LocalFifoQueue = createLocalFifoQueue({
      name: 'held.fifo',
      visibilityTimeoutMs: 10,
      batchSize: 1,
      handler: async (event: SQSEvent) => {
        const record = event.Records[0]!;
        deliveredAt.push([record.body, Date.now()]);
        if (record.body === 'a' && first) {
          first = false;
          queue!.changeVisibility(record.receiptHandle, 300);
          return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
        }
        return { batchItemFailures: [] };
      },
    });

    // Act
    await queue.send([
      { id: '1', body: 'a', groupId: 'g', deduplicationId: 'a' },
      { id: '2', body: 'b', groupId: 'g', deduplicationId: 'b' },
    ]);
    await queue.settle();
    await queue.stop();

    // Assert
    expect(deliveredAt.map(([body]) => body)).toEqual(['a', 'a', 'b']);
    expect(deliveredAt[1]![1] - deliveredAt[0]![1]).toBeGreaterThanOrEqual(290);
  });

  it("forgets the ask once the message is handled: a later failure waits the queue's timeout", async () => {
    // Prepare
    const deliveredAt: number[] = [];
    const queue: LocalFifoQueue = createLocalFifoQueue({
      name: 'plain.fifo',
      visibilityTimeoutMs: 20,
      batchSize: 1,
      handler: async (event: SQSEvent) => {
        const record = event.Records[0]!;
        deliveredAt.push(Date.now());
        if (deliveredAt.length === 1) queue!.changeVisibility(record.receiptHandle, 300);
        return { batchItemFailures: deliveredAt.length < 3 ? [{ itemIdentifier: record.messageId }] : [] };
      },
    });

    // Act
    await queue.send([{ id: '1', body: 'a', groupId: 'g', deduplicationId: 'a' }]);
    await queue.settle();
    await queue.stop();

    // Assert
    expect(deliveredAt).toHaveLength(3);
    expect(deliveredAt[1]! - deliveredAt[0]!).toBeGreaterThanOrEqual(290);
    expect(deliveredAt[2]! - deliveredAt[1]!).toBeLessThan(250);
  });

  it('holds only the group of the message it was asked for, in a batch that mixes groups', async () => {
    // Prepare
    const deliveredAt: [string, number][] = [];
    const queue: LocalFifoQueue = createLocalFifoQueue({
      name: 'mixed.fifo',
      visibilityTimeoutMs: 10,
      handler: async (event: SQSEvent) => {
        const first = deliveredAt.length === 0;
        for (const record of event.Records) deliveredAt.push([record.body, Date.now()]);
        if (!first) return { batchItemFailures: [] };
        queue!.changeVisibility(event.Records.find((record) => record.body === 'a')!.receiptHandle, 300);
        return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
      },
    });

    // Act
    await queue.send([
      { id: '1', body: 'a', groupId: 'held', deduplicationId: 'a' },
      { id: '2', body: 'b', groupId: 'other', deduplicationId: 'b' },
    ]);
    await queue.settle();
    await queue.stop();

    // Assert
    expect(deliveredAt.map(([body]) => body)).toEqual(['a', 'b', 'b', 'a']);
    const [, , b2, a2] = deliveredAt.map(([, at]) => at - deliveredAt[0]![1]);
    expect(b2).toBeLessThan(250);
    expect(a2).toBeGreaterThanOrEqual(290);
  });
});
