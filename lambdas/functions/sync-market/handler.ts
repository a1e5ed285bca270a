import { stagePlannerSettings } from '../../config/read-planner.js';
import { PRICE_SENDER_QUEUE_URL_ENV } from '../../config/price-sending.js';
import { sqsSender } from '../../queue/sender.js';
import { traced } from '../../observability/traced.js';
import { marketSyncWorker } from './sync.js';

/** SQS FIFO consumer (group: the connection): own-offer syncs, and the looks they bring forward (sync.ts). */
const pricesUrl = process.env[PRICE_SENDER_QUEUE_URL_ENV];
if (!pricesUrl) throw new Error(`${PRICE_SENDER_QUEUE_URL_ENV} is not set`);

export const handler = traced(marketSyncWorker({ prices: sqsSender(pricesUrl), planner: stagePlannerSettings(process.env) }));
