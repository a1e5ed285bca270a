import { forwardChanges } from './forward.js';
import { MARKET_SYNC_QUEUE_URL_ENV } from '../../config/market-sync.js';
import { PRICE_SENDER_QUEUE_URL_ENV } from '../../config/price-sending.js';
import { sqsSender } from '../../queue/sender.js';
import { traced } from '../../observability/traced.js';

/** DynamoDB stream consumer: forwards changes to the FIFO queues of the consumers (routes.ts). */
const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

export const handler = traced(
  forwardChanges({
    lists: sqsSender(required('LIST_QUEUE_URL')),
    repricing: sqsSender(required('REPRICING_QUEUE_URL')),
    imports: sqsSender(required('IMPORT_QUEUE_URL')),
    webhooks: sqsSender(required('WEBHOOK_QUEUE_URL')),
    marketSync: sqsSender(required(MARKET_SYNC_QUEUE_URL_ENV)),
    prices: sqsSender(required(PRICE_SENDER_QUEUE_URL_ENV)),
  }),
);
