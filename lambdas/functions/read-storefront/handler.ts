import { ChangeMessageVisibilityCommand, SQSClient } from '@aws-sdk/client-sqs';
import { MARKET_SYNC, STOREFRONT_QUEUE_URL_ENV, STOREFRONT_RATE_ENV } from '../../config/market-sync.js';
import { tracer } from '../../observability/tracer.js';
import { traced } from '../../observability/traced.js';
import { storefrontReader } from './read.js';

/** SQS FIFO consumer (group: connection and product): reads storefront pages politely (read.ts). */
const queueUrl = process.env[STOREFRONT_QUEUE_URL_ENV];
if (!queueUrl) throw new Error(`${STOREFRONT_QUEUE_URL_ENV} is not set`);
const stageRate = Number(process.env[STOREFRONT_RATE_ENV] ?? MARKET_SYNC.storefrontRequestsPerSecond);
const MAX_VISIBILITY_SECONDS = 12 * 3600;
const sqs = tracer.captureAWSv3Client(new SQSClient({}));

export const handler = traced(
  storefrontReader(
    async (record, delayMs) => {
      const seconds = Math.min(MAX_VISIBILITY_SECONDS, Math.max(1, Math.ceil(delayMs / 1000)));
      await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds }));
    },
    // The stage's rate is one budget in the table, shared by every reader that runs at once.
    { stageRequestsPerSecond: stageRate },
  ),
);
