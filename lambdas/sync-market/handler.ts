import { STOREFRONT_QUEUE_URL_ENV } from '../config/market-sync.js';
import { PRICE_SENDER_QUEUE_URL_ENV } from '../config/price-sending.js';
import { sqsSender } from '../queue/sender.js';
import { traced } from '../observability/traced.js';
import { marketSyncWorker } from './sync.js';

/** SQS FIFO consumer (group: the connection): own-offer syncs and tier scheduling (sync.ts). */
const queueUrl = process.env[STOREFRONT_QUEUE_URL_ENV];
if (!queueUrl) throw new Error(`${STOREFRONT_QUEUE_URL_ENV} is not set`);
const pricesUrl = process.env[PRICE_SENDER_QUEUE_URL_ENV];
if (!pricesUrl) throw new Error(`${PRICE_SENDER_QUEUE_URL_ENV} is not set`);

export const handler = traced(marketSyncWorker({ storefront: sqsSender(queueUrl), prices: sqsSender(pricesUrl) }));
