/**
 * How Lambda reads a handler's answer to a batch when the event source mapping has
 * `ReportBatchItemFailures` (both local drivers use it, for DynamoDB Streams and for SQS).
 *
 * - no answer, no `batchItemFailures`, or an empty list: the whole batch succeeded;
 * - a list: for a stream, the batch failed from its earliest listed item on (the lowest
 *   sequence number); for a FIFO queue, each group failed from its earliest listed message on,
 *   and the groups with none listed succeeded;
 * - an item identifier that is empty, not a string or not in the batch: the whole batch
 *   failed, as Lambda documents for malformed responses.
 */

export interface BatchFailure {
  /** Index in the batch of the first item to retry; every later item is retried too. */
  readonly failedFrom: number;
  readonly error: Error;
}

/** What an answer reports failed: some items, by identifier, or (a malformed answer, a throw) all of them. */
export type ReportedFailures = { readonly kind: 'items'; readonly ids: ReadonlySet<string> } | { readonly kind: 'all'; readonly error: Error };

const identifierOf = (failure: unknown): unknown =>
  typeof failure === 'object' && failure !== null && 'itemIdentifier' in failure ? failure.itemIdentifier : undefined;

/** The error a dead letter or a discarded record keeps when the handler reported `itemId` as failed. */
export const reportedItemError = (itemId: string | undefined): Error => new Error(`The handler reported item ${itemId} as failed`);

/** `itemIds` are the batch's identifiers; `undefined` means success. */
export const reportedFailures = (itemIds: readonly string[], response: unknown): ReportedFailures | undefined => {
  if (typeof response !== 'object' || response === null || !('batchItemFailures' in response)) return undefined;
  const failures = response.batchItemFailures;
  if (failures === undefined || failures === null) return undefined;
  if (!Array.isArray(failures)) {
    return { kind: 'all', error: new Error('The handler answered a batchItemFailures that is not a list; the whole batch failed') };
  }
  const ids = new Set<string>();
  for (const failure of failures) {
    const id = identifierOf(failure);
    if (typeof id !== 'string' || id === '' || !itemIds.includes(id)) {
      return { kind: 'all', error: new Error(`The handler reported a failure for ${JSON.stringify(id)}, which is not in the batch; the whole batch failed`) };
    }
    ids.add(id);
  }
  return ids.size === 0 ? undefined : { kind: 'items', ids };
};

/** A thrown error (or rejection), as the error of a failed batch. */
export const thrownError = (thrown: unknown): Error => (thrown instanceof Error ? thrown : new Error(`The handler threw ${String(thrown)}`));

/** `itemIds` are the batch's identifiers in delivery order (a stream's); `undefined` means success. */
export const batchFailure = (itemIds: readonly string[], response: unknown): BatchFailure | undefined => {
  const reported = reportedFailures(itemIds, response);
  if (reported === undefined) return undefined;
  if (reported.kind === 'all') return { failedFrom: 0, error: reported.error };
  const failedFrom = itemIds.findIndex((id) => reported.ids.has(id));
  return { failedFrom, error: reportedItemError(itemIds[failedFrom]) };
};

/** A thrown error (or rejection) fails the whole batch. */
export const thrownFailure = (thrown: unknown): BatchFailure => ({ failedFrom: 0, error: thrownError(thrown) });
