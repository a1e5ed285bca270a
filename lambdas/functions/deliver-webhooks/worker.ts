import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { processFifoBatch } from '../../queue/fifo-batch.js';
import { webhookEventMessage } from '../../events/webhook-events.js';
import { logger } from '../../observability/logger.js';
import { DEFAULT_DELIVERY_OPTIONS, deliverEvent, type DeliveryOptions } from './deliver.js';
import { requireMessageBody } from '../../queue/message-body.js';

/** Holds a message back: SQS's ChangeMessageVisibility on AWS, the local queue's equivalent under `npm start`. */
export type HoldMessage = (record: SQSRecord, delayMs: number) => Promise<void>;

export class DeliveryPending extends Error {
  constructor(readonly delayMs: number) {
    super(`A delivery is due again in ${delayMs} ms`);
    this.name = 'DeliveryPending';
  }
}

/**
 * The webhook worker. A message whose deliveries are not all over (a receiver failed) is held
 * back until the earliest next attempt is due, and fails: its FIFO group (tenant and repricer)
 * waits behind it, so that repricer's later events are never delivered before it, while the
 * other groups go on. A message is deleted once each of its deliveries is delivered or
 * dead-lettered (after 24 hours of attempts).
 */
export const webhookWorker =
  (hold: HoldMessage, options: Partial<DeliveryOptions> = {}) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const effective = { ...DEFAULT_DELIVERY_OPTIONS, ...options };
    const handleRecord = async (record: SQSRecord): Promise<void> => {
      const message = requireMessageBody(webhookEventMessage, record.body);
      const wait = await deliverEvent(message, effective);
      if (wait === undefined) return;
      await hold(record, wait);
      throw new DeliveryPending(wait);
    };
    const response = await processFifoBatch(event, handleRecord, { throwOnFullBatchFailure: false });
    if (response.batchItemFailures.length > 0) logger.debug('Webhook deliveries pending', { messages: response.batchItemFailures.length });
    return response;
  };
