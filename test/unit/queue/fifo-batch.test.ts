import { processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSRecord } from 'aws-lambda';
import { GroupIsolatedFifoProcessor, processFifoBatch } from '../../../lambdas/queue/fifo-batch.js';
import type { QueueMessage } from '../../../lambdas/queue/sender.js';
import { sqsEventOf } from '../../support/sqs-events.js';

const message = (groupId: string, body: string): QueueMessage => ({ groupId, deduplicationId: body, body });
/** A batch mixing two tenants' groups, as SQS FIFO delivers them: a1 is the poison message. */
const event = sqsEventOf([message('a', 'a1'), message('b', 'b1'), message('a', 'a2'), message('b', 'b2')]);
const idOf = (body: string) => event.Records.find((record) => record.body === body)!.messageId;

/** Records what it handles; fails on a1. */
const handling = () => {
  const handled: string[] = [];
  const handleRecord = (record: SQSRecord): Promise<void> => {
    handled.push(record.body);
    return record.body === 'a1' ? Promise.reject(new Error('poison')) : Promise.resolve();
  };
  return { handled, handleRecord };
};

describe('processFifoBatch', () => {
  it("fails the failed message and its group's later ones, unhandled, and handles every other group's", async () => {
    // Arrange
    const { handled, handleRecord } = handling();

    // Act
    const response = await processFifoBatch(event, handleRecord);

    // Assert
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: idOf('a1') }, { itemIdentifier: idOf('a2') }]);
    expect(handled).toEqual(['a1', 'b1', 'b2']);
  });

  it('throws when every message failed, unless told not to', async () => {
    const failing = () => Promise.reject(new Error('down'));
    await expect(processFifoBatch(event, failing)).rejects.toThrow('All records failed processing');
    await expect(processFifoBatch(event, failing, { throwOnFullBatchFailure: false })).resolves.toEqual({
      batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })),
    });
  });
});

describe('GroupIsolatedFifoProcessor', () => {
  it('isolates the groups even when processPartialResponse is given no options', async () => {
    // Arrange
    const { handled, handleRecord } = handling();

    // Act
    const response = await processPartialResponse(event, handleRecord, new GroupIsolatedFifoProcessor());

    // Assert
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: idOf('a1') }, { itemIdentifier: idOf('a2') }]);
    expect(handled).toEqual(['a1', 'b1', 'b2']);
  });
});
