import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { tracer } from '../observability/tracer.js';
import { MAX_BATCH_BYTES, MAX_BATCH_ENTRIES, messageBytes, refusalOf } from './sqs-rules.js';

/**
 * Where event handlers put work for other handlers: an SQS FIFO queue on AWS, an in-memory
 * queue under `npm start` (tools/local). Messages of one group are handled one at a time, in order.
 */
export interface QueueMessage {
  readonly groupId: string;
  readonly deduplicationId: string;
  readonly body: string;
}

/** A message SQS will never take (its contents or size), left out so the others are sent. */
export interface RefusedMessage {
  readonly message: QueueMessage;
  readonly reason: string;
}

export interface QueueSender {
  /** Sends what can be sent; resolves with the messages refused for good, rejects when a retry could succeed. */
  send(messages: readonly QueueMessage[]): Promise<readonly RefusedMessage[] | void>;
}

/**
 * The messages SQS would refuse, and the others in calls SQS takes: at most 10 entries and
 * 256 KiB a call, in their order (a FIFO group's order is the order of sending).
 */
export const planBatches = (messages: readonly QueueMessage[]): { batches: QueueMessage[][]; refused: RefusedMessage[] } => {
  const batches: QueueMessage[][] = [];
  const refused: RefusedMessage[] = [];
  let batch: QueueMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const reason = refusalOf(message.body);
    if (reason) {
      refused.push({ message, reason });
      continue;
    }
    const size = messageBytes(message.body);
    if (batch.length === MAX_BATCH_ENTRIES || bytes + size > MAX_BATCH_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return { batches, refused };
};

/** A sender over a SendMessageBatch-like call that answers the entries it refused for good. */
export const batchingSender = (sendBatch: (batch: readonly QueueMessage[]) => Promise<readonly { index: number; reason: string }[]>): QueueSender => ({
  async send(messages) {
    const { batches, refused } = planBatches(messages);
    for (const batch of batches) {
      for (const { index, reason } of await sendBatch(batch)) refused.push({ message: batch[index]!, reason });
    }
    return refused;
  },
});

export const sqsSender = (queueUrl: string, client: SQSClient = tracer.captureAWSv3Client(new SQSClient({}))): QueueSender =>
  batchingSender(async (batch) => {
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
    const failed = result.Failed ?? [];
    // A sender fault (the entry itself is wrong) fails again on every retry: it is refused for good.
    const retriable = failed.filter((entry) => !entry.SenderFault);
    if (retriable.length > 0) throw new Error(`SQS could not take ${retriable.length} message(s): ${retriable.map((f) => f.Code).join(', ')}`);
    return failed.map((entry) => ({ index: Number(entry.Id), reason: entry.Code ?? 'SenderFault' }));
  });
