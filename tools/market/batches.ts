/**
 * Batch price updates: `POST /offers/batch` stores the entries as a pending batch; once
 * `batchDelayMs` has passed on the clock, the batch is settled (each entry checked and applied
 * on its own) and reads SUCCESS when every entry was applied, FAILURE when any was refused (the
 * others still applied, as the per-offer results show). The status is shown in the v1-like form
 * (`results[]`) or the reported v2 form (`result[]` of `{ offer, validation_errors }`), as the
 * `batchStatus` shape says.
 */
import type { ValidationError } from './offer-updates.js';

export type BatchStatus = 'pending' | 'SUCCESS' | 'FAILURE';

export interface BatchEntryResult {
  offer_id: number | null;
  sku: string | null;
  status: 'SUCCESS' | 'FAILURE';
  message?: string;
}

/** What v2 shows of an entry beside its status: the offer's price after settling and the errors that refused it. */
export interface BatchEntryCheck {
  selling_price: number | null;
  validation_errors: ValidationError[];
}

export type BatchStatusForm = 'v1' | 'v2';

export interface Batch {
  batch_id: number;
  status: BatchStatus;
  submitted_at: number;
  due_at: number;
  completed_at: number | null;
  request_id: string | undefined;
  /** The seller account that submitted it: only its offers are changed, only it can read the batch. */
  account: number;
  entries: Record<string, unknown>[];
  results: BatchEntryResult[] | null;
  /** Per entry, in the order of `results`. */
  checks: BatchEntryCheck[] | null;
}

/** Takealot's v2 limit, the only published one. */
export const MAX_BATCH_ENTRIES = 10_000;
const MAX_BATCHES_KEPT = 10_000;

export class BatchStore {
  private readonly batches = new Map<number, Batch>();
  private nextId = 1;

  submit(entries: Record<string, unknown>[], now: number, delayMs: number, requestId: string | undefined, account = 0): Batch {
    const batch: Batch = {
      batch_id: this.nextId++,
      status: 'pending',
      submitted_at: now,
      due_at: now + delayMs,
      completed_at: null,
      request_id: requestId,
      account,
      entries,
      results: null,
      checks: null,
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
  static view(batch: Batch, form: BatchStatusForm = 'v1'): Record<string, unknown> {
    const base = {
      batch_id: batch.batch_id,
      status: batch.status,
      submitted_at: new Date(batch.submitted_at).toISOString(),
      completed_at: batch.completed_at === null ? null : new Date(batch.completed_at).toISOString(),
      offer_count: batch.entries.length,
    };
    if (batch.results === null) return form === 'v2' ? { ...base, result: [] } : base;
    if (form === 'v1') return { ...base, results: batch.results };
    const result = batch.results.map((entry, index) => {
      const check = batch.checks?.[index];
      return {
        offer: { offer_id: entry.offer_id, ...(entry.sku === null ? {} : { sku: entry.sku }), selling_price: check?.selling_price ?? null },
        validation_errors: check?.validation_errors ?? [],
      };
    });
    return { ...base, result };
  }
}
