import { traced } from '../../observability/traced.js';
import { priceSenderWorker } from './worker.js';

/** SQS FIFO consumer of the `price-sender` queue (group: the connection): sends, confirms, sweeps (worker.ts). */
export const handler = traced(priceSenderWorker());
