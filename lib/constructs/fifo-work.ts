import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { MonitoredQueue } from './monitored-queue.js';

/** Dead letters are kept as long as SQS allows, to be looked at and redriven. */
const DEAD_LETTER_RETENTION = Duration.days(14);

export interface FifoWorkProps {
  /** Longer than the consumer's timeout, so a message is never handed out twice at once. */
  readonly visibilityTimeout: Duration;
  /** Deliveries of a message before it goes to the dead-letter queue. */
  readonly maxReceiveCount: number;
  /** How long the work queue keeps a message; SQS's default (4 days) when not given. */
  readonly retentionPeriod?: Duration;
}

/**
 * A FIFO work queue and its FIFO dead-letter queue: the one way the stack builds them, so every
 * work queue is encrypted, refuses plain HTTP and dead-letters what fails too often.
 */
export class FifoWork extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: FifoWorkProps) {
    super(scope, id);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      fifo: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.queue = new Queue(this, 'Queue', {
      fifo: true,
      visibilityTimeout: props.visibilityTimeout,
      ...(props.retentionPeriod ? { retentionPeriod: props.retentionPeriod } : {}),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: props.maxReceiveCount },
      removalPolicy: RemovalPolicy.DESTROY,
    });
  }

  /** Both queues for the alarms and the dashboard: `name` and `<name>DeadLetters`. */
  monitored(name: string, { ageAlarm, stalledAfterSeconds }: { readonly ageAlarm: boolean; readonly stalledAfterSeconds?: number }): MonitoredQueue[] {
    return [
      { name, queue: this.queue, kind: 'work', ageAlarm, ...(stalledAfterSeconds === undefined ? {} : { stalledAfterSeconds }) },
      { name: `${name}DeadLetters`, queue: this.deadLetters, kind: 'deadLetters' },
    ];
  }
}
