import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { tracer } from '../tracer.js';

/**
 * Where event handlers put work for other handlers: an SQS FIFO queue on AWS, an in-memory
 * queue under `npm start` (tools/local). Messages of one group are handled one at a time, in order.
 */
export interface QueueMessage {
  readonly groupId: string;
  readonly deduplicationId: string;
  readonly body: string;
}

export interface QueueSender {
  send(messages: readonly QueueMessage[]): Promise<void>;
}

const SEND_BATCH_LIMIT = 10;

export const sqsSender = (queueUrl: string, client: SQSClient = tracer.captureAWSv3Client(new SQSClient({}))): QueueSender => ({
  async send(messages) {
    for (let i = 0; i < messages.length; i += SEND_BATCH_LIMIT) {
      const batch = messages.slice(i, i + SEND_BATCH_LIMIT);
      const result = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((message, index) => ({
            Id: String(index),
            MessageBody: message.body,
            MessageGroupId: message.groupId,
            MessageDeduplicationId: message.deduplicationId,
          })),
        }),
      );
      if (result.Failed && result.Failed.length > 0) {
        throw new Error(`SQS refused ${result.Failed.length} message(s): ${result.Failed.map((f) => f.Code).join(', ')}`);
      }
    }
  },
});
