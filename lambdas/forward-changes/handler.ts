import { forwardChanges } from './forward.js';
import { sqsSender } from '../shared/queue/sender.js';

/** DynamoDB stream consumer: forwards changes to the FIFO queues of the consumers (routes.ts). */
const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

export const handler = forwardChanges({
  lists: sqsSender(required('LIST_QUEUE_URL')),
  repricing: sqsSender(required('REPRICING_QUEUE_URL')),
  webhooks: sqsSender(required('WEBHOOK_QUEUE_URL')),
});
