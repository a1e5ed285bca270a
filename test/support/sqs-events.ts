import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueMessage, QueueSender } from '../../lambdas/queue/sender.js';

/** Messages as an SQS FIFO event source hands them to a function (a first delivery each). */
export const sqsEventOf = (messages: readonly QueueMessage[], receiveCount = 1): SQSEvent => ({
  Records: messages.map((message, n): SQSRecord => ({
    messageId: `message-${n}-${message.deduplicationId}`,
    receiptHandle: `receipt-${n}`,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(Date.now()),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      MessageGroupId: message.groupId,
      MessageDeduplicationId: message.deduplicationId,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:af-south-1:000000000000:test.fifo',
    awsRegion: 'af-south-1',
  })),
});

/** A sender that keeps what it is given, for a test to hand on. */
export const capturingSender = (): QueueSender & { readonly sent: QueueMessage[]; take(): QueueMessage[] } => {
  const sent: QueueMessage[] = [];
  return {
    sent,
    send: (messages) => {
      sent.push(...messages);
      return Promise.resolve([]);
    },
    take: () => sent.splice(0, sent.length),
  };
};
