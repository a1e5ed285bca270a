import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { priceSenderMessage } from '../shared/events/price-sender.js';
import { logger } from '../shared/logger.js';
import type { PushDeps } from './push.js';
import { sendChanges } from './send.js';
import { confirmBatch, sweepConnection } from './sweep.js';

/**
 * The price sender: one connection's messages at a time (its FIFO group). A marketplace fault
 * never fails a message (the group would hold the connection's later prices back): it is kept
 * on the price changes, and the sweep tries again when it is due. Only a fault of the table
 * fails the message, to be redelivered; what it had done is found done (conditional moves).
 */
const parseBody = (body: string): unknown => {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
};

export const defaultPushDeps: PushDeps = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

export const priceSenderWorker =
  (deps: PushDeps = defaultPushDeps) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const handleRecord = async (sqsRecord: SQSRecord): Promise<void> => {
      const parsed = priceSenderMessage.safeParse(parseBody(sqsRecord.body));
      if (!parsed.success) {
        logger.error('Price sender message refused', { messageId: sqsRecord.messageId });
        return;
      }
      const message = parsed.data;
      if (message.kind === 'changes') await sendChanges(message.clientId, message.connector, message.changes, deps);
      else if (message.kind === 'sweep') await sweepConnection(message.clientId, message.connector, deps);
      else await confirmBatch(message.clientId, message.connector, message.batchId, deps);
    };
    return processPartialResponse(event, handleRecord, new SqsFifoPartialProcessorAsync(), { throwOnFullBatchFailure: false });
  };
