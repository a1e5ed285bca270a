import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { tracer } from '../../observability/tracer.js';
import { traced } from '../../observability/traced.js';
import { webhookWorker } from './worker.js';

/** SQS FIFO consumer: delivers webhook events (worker.ts); a pending delivery holds its message back. */
const queueUrl = process.env.WEBHOOK_QUEUE_URL;
if (!queueUrl) throw new Error('WEBHOOK_QUEUE_URL is not set');

/** The longest hold SQS allows is 12 hours; the retry schedule never asks more than 15 minutes. */
const MAX_VISIBILITY_SECONDS = 12 * 3600;
const sqs = tracer.captureAWSv3Client(new SQSClient({}));

export const handler = traced(
  webhookWorker(async (record, delayMs) => {
    const seconds = Math.min(MAX_VISIBILITY_SECONDS, Math.max(1, Math.ceil(delayMs / 1000)));
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds }));
  }),
);
