/**
 * Messages of the local FIFO queue: the checks SendMessageBatch makes on its entries, and the
 * `SQSRecord` Lambda hands the consumer for each delivery.
 */
import { createHash } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { MAX_BATCH_BYTES, MAX_BATCH_ENTRIES, MAX_MESSAGE_BYTES, messageBytes, refusalOf } from '../../lambdas/queue/sqs-rules.js';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './api-event.js';

/** SendMessageBatch takes at most this many entries. */
export const MAX_SEND_ENTRIES = MAX_BATCH_ENTRIES;

export interface FifoSendEntry {
  /** Identifies the entry in the result, unique within the call (SendMessageBatch's `Id`). */
  readonly id: string;
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
}

export interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  /** Zero-padded decimal, so that string order is numeric order. */
  readonly sequenceNumber: string;
  readonly sentTimestamp: number;
  receiveCount: number;
  firstReceiveTimestamp: number | undefined;
}

/** An error SQS would answer the whole call with; `name` is SQS's error code. */
export class FifoQueueError extends Error {
  constructor(code: string, message: string) {
    super(message);
    this.name = code;
  }
}

const ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;
/** Group and deduplication ids: 1-128 alphanumeric or punctuation characters. */
const FIFO_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Throws the error SQS would answer; nothing of an invalid call is enqueued. As SQS: a body of
 * characters outside its set or over 256 KiB, and a call over 256 KiB, are refused, so a test
 * sees what AWS would refuse.
 */
export const validateEntries = (entries: readonly FifoSendEntry[]): void => {
  if (entries.length === 0) throw new FifoQueueError('EmptyBatchRequest', 'There should be at least one entry in the request');
  if (entries.length > MAX_SEND_ENTRIES) {
    throw new FifoQueueError('TooManyEntriesInBatchRequest', `Maximum number of entries per request are ${MAX_SEND_ENTRIES}; this one has ${entries.length}`);
  }
  if (new Set(entries.map((entry) => entry.id)).size !== entries.length) {
    throw new FifoQueueError('BatchEntryIdsNotDistinct', 'Two or more batch entries in the request have the same Id');
  }
  for (const entry of entries) {
    if (!ENTRY_ID.test(entry.id)) throw new FifoQueueError('InvalidBatchEntryId', `Invalid entry id ${JSON.stringify(entry.id)}`);
    if (entry.body === '') throw new FifoQueueError('InvalidParameterValue', `Entry ${entry.id} has an empty body`);
    const refusal = refusalOf(entry.body);
    if (refusal === 'InvalidMessageContents') {
      throw new FifoQueueError(
        'InvalidMessageContents',
        `Entry ${entry.id} holds characters outside SQS's allowed set (#x9, #xA, #xD, #x20-#xD7FF, #xE000-#xFFFD, #x10000+)`,
      );
    }
    if (refusal === 'MessageTooLong') {
      throw new FifoQueueError('InvalidParameterValue', `Entry ${entry.id} is longer than ${MAX_MESSAGE_BYTES} bytes`);
    }
    if (!FIFO_ID.test(entry.groupId)) throw new FifoQueueError('InvalidParameterValue', `Entry ${entry.id} has an invalid MessageGroupId`);
    if (!FIFO_ID.test(entry.deduplicationId)) {
      throw new FifoQueueError('InvalidParameterValue', `Entry ${entry.id} has an invalid MessageDeduplicationId`);
    }
  }
  const total = entries.reduce((sum, entry) => sum + messageBytes(entry.body), 0);
  if (total > MAX_BATCH_BYTES) throw new FifoQueueError('BatchRequestTooLong', `The batch's bodies total ${total} bytes; at most ${MAX_BATCH_BYTES}`);
};

export const md5Hex = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

export const queueArn = (name: string): string => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${name}`;

/** SQS's sequence numbers are large decimals; 20 digits keep string and numeric order the same. */
export const formatSequenceNumber = (value: bigint): string => value.toString().padStart(20, '0');

/** One delivery of `message`: each gets its own receipt handle, as on AWS. */
export const toSqsRecord = (message: StoredMessage, arn: string, receiptHandle: string): SQSRecord => ({
  messageId: message.messageId,
  receiptHandle,
  body: message.body,
  attributes: {
    ApproximateReceiveCount: String(message.receiveCount),
    SentTimestamp: String(message.sentTimestamp),
    SenderId: LOCAL_ACCOUNT,
    ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp ?? Date.now()),
    SequenceNumber: message.sequenceNumber,
    MessageGroupId: message.groupId,
    MessageDeduplicationId: message.deduplicationId,
  },
  messageAttributes: {},
  md5OfBody: message.md5OfBody,
  eventSource: 'aws:sqs',
  eventSourceARN: arn,
  awsRegion: LOCAL_REGION,
});
