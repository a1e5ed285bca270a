import { MARKET_SYNC_QUEUE_URL_ENV, STOREFRONT_QUEUE_URL_ENV } from '../../config/market-sync.js';
import { stagePlannerSettings } from '../../config/read-planner.js';
import { planStorefrontReads } from '../../read-planning/plan-reads.js';
import { sqsSender } from '../../queue/sender.js';
import { traced } from '../../observability/traced.js';
import { scheduleMarketSyncs } from './schedule.js';

/** EventBridge schedule (once a minute): a tick per connection to the sync worker, and the read planner's run (schedule.ts). */
const queueUrl = process.env[MARKET_SYNC_QUEUE_URL_ENV];
if (!queueUrl) throw new Error(`${MARKET_SYNC_QUEUE_URL_ENV} is not set`);
const storefrontUrl = process.env[STOREFRONT_QUEUE_URL_ENV];
if (!storefrontUrl) throw new Error(`${STOREFRONT_QUEUE_URL_ENV} is not set`);

export const handler = traced(scheduleMarketSyncs(sqsSender(queueUrl), planStorefrontReads(sqsSender(storefrontUrl), stagePlannerSettings(process.env))));
