/**
 * How the change stream and the work queues reach their functions: batch sizes, timeouts,
 * retries. Plain numbers, no CDK: the stack builds its event source mappings and queues from
 * them, and `npm start` drives the same handlers with the same batching (tools/local).
 */
/**
 * Deliveries of a job the worker makes before it gives up and fails the job visibly. One less
 * than the queue's maxReceiveCount: the last delivery is kept to mark the job failed, so even a
 * worker killed on every attempt (a timeout) leaves no job `running` forever.
 */
export const MAX_IMPORT_ATTEMPTS = 4;

/** How the table's change stream reaches the list maintainer, the repricing evaluator and the webhook worker (docs/data-model.md). */
export const CHANGE_HANDLERS = {
  forwarderEntry: 'lambdas/functions/forward-changes/handler.ts',
  maintainerEntry: 'lambdas/functions/maintain-lists/handler.ts',
  evaluatorEntry: 'lambdas/functions/evaluate-repricers/handler.ts',
  /**
   * Stream records per forwarder invocation. No batching window: a change is forwarded at
   * once, and records that arrive while a batch runs make up the next one.
   */
  streamBatchSize: 100,
  streamBatchingWindowSeconds: 0,
  streamRetryAttempts: 10,
  /** Messages per consumer invocation (SQS FIFO allows at most 10). */
  queueBatchSize: 10,
  consumerTimeoutSeconds: 60,
  consumerMemoryMb: 1024,
  /** A message that failed this many times goes to its dead-letter queue (alarmed). */
  maxReceiveCount: 5,
  /**
   * Only canonical changes wake the forwarder: listings, nodes and decision states never do.
   * Connections (their status changes are announced to the client's webhooks) and received
   * marketplace events (they bring a connection's next look forward) do.
   */
  streamEntities: ['offer', 'product', 'repricerSlot', 'priceChange', 'rebuildRequest', 'connection', 'marketplaceEvent', 'productMarket'],
} as const;

/**
 * The import worker: one job per message (a job can take minutes), one job at a time per
 * tenant. Its queue redelivers a job one more time than the worker attempts it, so the last
 * delivery can fail the job visibly (lambdas/events/import-jobs.ts).
 */
export const IMPORT_WORKER = {
  entry: 'lambdas/functions/process-imports/handler.ts',
  batchSize: 1,
  /** Lambda's maximum: a 5 MB body of offers takes well under a minute, and a killed run resumes. */
  timeoutSeconds: 15 * 60,
  memoryMb: 1024,
  maxReceiveCount: MAX_IMPORT_ATTEMPTS + 1,
  /**
   * Longer than the timeout so a job is never handed out twice at once, but not Lambda's
   * advised six times: a worker killed by its timeout should resume within minutes, and with
   * one message per batch there is no batch that throttling could keep waiting.
   */
  visibilityTimeoutSeconds: 20 * 60,
  /**
   * A job created `pending` queues itself, and a job that ended is announced (IMPORT_COMPLETED):
   * its progress updates (`running`) never wake the forwarder.
   */
  streamFilter: { dynamodb: { NewImage: { entity: { S: ['import'] }, record: { M: { status: { S: ['pending', 'completed', 'failed'] } } } } } },
} as const;

/** How webhook events reach the receivers (docs/webhooks.md). */
export const WEBHOOK_DELIVERY = {
  entry: 'lambdas/functions/deliver-webhooks/handler.ts',
  /**
   * One message per invocation: a message whose delivery failed is held back by its own
   * visibility change, and no later message of its group is left in flight beside it.
   */
  batchSize: 1,
  /** Up to five receivers, each given 10 s, in parallel, plus the table's calls. */
  timeoutSeconds: 30,
  /**
   * The worker itself dead-letters a delivery after 24 hours of attempts (about 100 of them);
   * the queue's redrive only catches messages the worker cannot handle at all.
   */
  maxReceiveCount: 200,
  /** Longer than the 24 h retry window, with a day to spare for an outage of the worker. */
  retentionSeconds: 4 * 24 * 3600,
} as const;

/** Lambda's advice for a queue's visibility timeout: six times its consumer's timeout, so a slow batch is not handed out twice. */
export const visibilityTimeoutFor = (consumerTimeoutSeconds: number): number => consumerTimeoutSeconds * 6;
