import type { IQueue } from 'aws-cdk-lib/aws-sqs';

/**
 * A queue as the alarms and the dashboard see it. The constructs that build queues list them
 * this way, so no queue can be added to the stack and left off the alarms or the dashboard.
 */
export type MonitoredQueue =
  | {
      readonly name: string;
      readonly queue: IQueue;
      /** Graphed by the age of its oldest message. */
      readonly kind: 'work';
      /** False where messages wait by design (e.g. a tenant's next import waits for its current one). */
      readonly ageAlarm: boolean;
      /** Where messages wait by design: the age that means the queue is stalled, alarmed instead of the usual minute. */
      readonly stalledAfterSeconds?: number;
    }
  | {
      readonly name: string;
      readonly queue: IQueue;
      /** Graphed by depth; any message in it is alarmed: work that was given up on. */
      readonly kind: 'deadLetters';
    };
