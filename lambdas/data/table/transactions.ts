export interface CancellationReason {
  readonly Code?: string;
  readonly Item?: Record<string, unknown>;
}

/** The reasons of a cancelled transaction, one per action, or undefined for other errors. */
export const cancellationReasons = (error: unknown): readonly CancellationReason[] | undefined => {
  if (!error || typeof error !== 'object' || (error as { name?: unknown }).name !== 'TransactionCanceledException') return undefined;
  return (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
};

/** A transaction that lost a race with another writer: re-read and retry. */
export const isConflict = (error: unknown): boolean =>
  (cancellationReasons(error) ?? []).some((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict');
