/**
 * How Lambda reads a handler's answer to a batch when the event source mapping has
 * `ReportBatchItemFailures` (both local drivers use it, for DynamoDB Streams and for SQS).
 *
 * - no answer, no `batchItemFailures`, or an empty list: the whole batch succeeded;
 * - a list: the batch failed from its earliest listed item on (for a stream, the lowest
 *   sequence number; for a FIFO queue, the earliest message of the group);
 * - an item identifier that is empty, not a string or not in the batch: the whole batch
 *   failed, as Lambda documents for malformed responses.
 */

export interface BatchFailure {
  /** Index in the batch of the first item to retry; every later item is retried too. */
  readonly failedFrom: number;
  readonly error: Error;
}

const identifierOf = (failure: unknown): unknown =>
  typeof failure === 'object' && failure !== null && 'itemIdentifier' in failure ? failure.itemIdentifier : undefined;

/** `itemIds` are the batch's identifiers in delivery order; `undefined` means success. */
export const batchFailure = (itemIds: readonly string[], response: unknown): BatchFailure | undefined => {
  if (typeof response !== 'object' || response === null || !('batchItemFailures' in response)) return undefined;
  const failures = response.batchItemFailures;
  if (failures === undefined || failures === null) return undefined;
  if (!Array.isArray(failures)) {
    return { failedFrom: 0, error: new Error('The handler answered a batchItemFailures that is not a list; the whole batch failed') };
  }
  let failedFrom: number | undefined;
  for (const failure of failures) {
    const id = identifierOf(failure);
    const index = typeof id === 'string' && id !== '' ? itemIds.indexOf(id) : -1;
    if (index < 0) {
      return { failedFrom: 0, error: new Error(`The handler reported a failure for ${JSON.stringify(id)}, which is not in the batch; the whole batch failed`) };
    }
    failedFrom = failedFrom === undefined ? index : Math.min(failedFrom, index);
  }
  if (failedFrom === undefined) return undefined;
  return { failedFrom, error: new Error(`The handler reported item ${itemIds[failedFrom]} as failed`) };
};

/** A thrown error (or rejection) fails the whole batch. */
export const thrownFailure = (thrown: unknown): BatchFailure => ({
  failedFrom: 0,
  error: thrown instanceof Error ? thrown : new Error(`The handler threw ${String(thrown)}`),
});
