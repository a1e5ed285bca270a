import { forwardChanges } from './forward.js';
import { sqsSender } from '../shared/queue/sender.js';

/** DynamoDB stream consumer: forwards offer and product changes to the list maintainer's FIFO queue. */
const queueUrl = process.env.LIST_QUEUE_URL;
if (!queueUrl) throw new Error('LIST_QUEUE_URL is not set');

export const handler = forwardChanges(sqsSender(queueUrl));
