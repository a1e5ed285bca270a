import type { SQSEvent } from 'aws-lambda';
import { OffsetClock } from '../../../tools/local/clock.js';
import { createLocalFifoQueue, type LocalFifoQueue } from '../../../tools/local/fifo-queue.js';

const HOUR = 3_600_000;

describe('the local runtime’s clock', () => {
  it('follows the wall clock, moves only forward, and tells who listens when it jumps', () => {
    const clock = new OffsetClock();
    const jumps: number[] = [];
    const stop = clock.onAdvance(() => jumps.push(clock.now()));
    const wall = Date.now();
    expect(Math.abs(clock.now() - wall)).toBeLessThan(1_000);
    clock.advance(2 * HOUR);
    expect(clock.now() - Date.now()).toBeGreaterThan(2 * HOUR - 1_000);
    clock.advanceTo(clock.now() - HOUR);
    expect(jumps).toHaveLength(1);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    stop();
    clock.advance(1);
    expect(jumps).toHaveLength(1);
  });

  it('delivers a message held for an hour as soon as the queue’s clock is moved an hour on', async () => {
    // Prepare: the handler holds its first delivery back for an hour.
    const clock = new OffsetClock();
    const deliveredAt: number[] = [];
    let first: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (first = resolve));
    const queue: LocalFifoQueue = createLocalFifoQueue({
      name: 'hour.fifo',
      batchSize: 1,
      clock,
      handler: async (event: SQSEvent) => {
        const record = event.Records[0]!;
        deliveredAt.push(clock.now());
        if (deliveredAt.length > 1) return { batchItemFailures: [] };
        queue.changeVisibility(record.receiptHandle, HOUR);
        setImmediate(first);
        return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
      },
    });
    await queue.send([{ id: '1', body: 'a', groupId: 'g', deduplicationId: 'a' }]);
    await held;
    await new Promise((resolve) => setTimeout(resolve, 50));

    // Act: an hour on, on the queue's clock.
    clock.advance(HOUR);
    await queue.settle();
    await queue.stop();

    // Assert: delivered again at once, an hour on by its clock.
    expect(deliveredAt).toHaveLength(2);
    expect(deliveredAt[1]! - deliveredAt[0]!).toBeGreaterThanOrEqual(HOUR);
  });
});
