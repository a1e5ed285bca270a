import { isStorableText } from '../domain/text.js';

/**
 * What SQS accepts in SendMessageBatch (its documented quotas), declared once for the senders
 * and the local queue that stands in for SQS: a message body of the characters #x9, #xA, #xD,
 * #x20-#xD7FF, #xE000-#xFFFD and #x10000 up (the storable-text rule, which was drawn from it),
 * at most 256 KiB, and at most 10 entries and 256 KiB a call.
 */
export const MAX_MESSAGE_BYTES = 256 * 1024;
export const MAX_BATCH_BYTES = 256 * 1024;
export const MAX_BATCH_ENTRIES = 10;

/** SQS's error codes for a message it refuses whatever the moment: sending it again cannot help. */
export type RefusalReason = 'InvalidMessageContents' | 'MessageTooLong';

export const messageBytes = (body: string): number => Buffer.byteLength(body, 'utf8');

/** Why SQS would refuse this body, or undefined when it would take it. */
export const refusalOf = (body: string): RefusalReason | undefined => {
  if (!isStorableText(body)) return 'InvalidMessageContents';
  if (messageBytes(body) > MAX_MESSAGE_BYTES) return 'MessageTooLong';
  return undefined;
};
