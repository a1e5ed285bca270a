/**
 * Batch price updates: `POST /offers/batch` stores the entries as a pending batch; once
 * `batchDelayMs` has passed on the clock, the batch is settled (each entry checked and applied
 * on its own) and reads SUCCESS when every entry was applied, FAILURE when any was refused (the
 * others still applied, as the per-offer results show).
 */
export type BatchStatus = 'pending' | 'SUCCESS' | 'FAILURE';

export interface BatchEntryResult {
  offer_id: number | null;
  sku: string | null;
  status: 'SUCCESS' | 'FAILURE';
  message?: string;
}

export interface Batch {
  batch_id: number;
  status: BatchStatus;
  submitted_at: number;
  due_at: number;
  completed_at: number | null;
  request_id: string | undefined;
  entries: Record<string, unknown>[];
  results: BatchEntryResult[] | null;
}

/** Takealot's v2 limit, the only published one. */
export const MAX_BATCH_ENTRIES = 10_000;
const MAX_BATCHES_KEPT = 10_000;

export class BatchStore {
  private readonly batches = new Map<number, Batch>();
  private nextId = 1;

  submit(entries: Record<string, unknown>[], now: number, delayMs: number, requestId: string | undefined): Batch {
    const batch: Batch = {
      batch_id: this.nextId++,
      status: 'pending',
      submitted_at: now,
      due_at: now + delayMs,
      completed_at: null,
      request_id: requestId,
      entries,
      results: null,
    };
    this.batches.set(batch.batch_id, batch);
    // The oldest settled batches go first; a pending one is never forgotten.
    if (this.batches.size > MAX_BATCHES_KEPT) {
      for (const [id, old] of this.batches) {
        if (old.status !== 'pending') {
          this.batches.delete(id);
          break;
        }
      }
    }
    return batch;
  }

  get(batchId: number): Batch | undefined {
    return this.batches.get(batchId);
  }

  /** Pending batches whose time has come, oldest first (settled in submission order). */
  due(now: number): Batch[] {
    return [...this.batches.values()].filter((batch) => batch.status === 'pending' && batch.due_at <= now);
  }

  pendingCount(): number {
    let pending = 0;
    for (const batch of this.batches.values()) if (batch.status === 'pending') pending += 1;
    return pending;
  }

  /** The batch as `GET /offers/batch/{batch_id}` shows it. */
  static view(batch: Batch): Record<string, unknown> {
    return {
      batch_id: batch.batch_id,
      status: batch.status,
      submitted_at: new Date(batch.submitted_at).toISOString(),
      completed_at: batch.completed_at === null ? null : new Date(batch.completed_at).toISOString(),
      offer_count: batch.entries.length,
      ...(batch.results === null ? {} : { results: batch.results }),
    };
  }
}
