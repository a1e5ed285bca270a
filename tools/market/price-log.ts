/**
 * Every selling price the simulator accepts, per offer, so that benchmarks and tests can check
 * afterwards that no price went under a floor or over a ceiling and that nothing was sent twice.
 * Duplicates are counted three ways: a request id (`X-Request-Id` or `Idempotency-Key`) seen
 * before, the same offer twice in one batch, and a price equal to the one already set.
 */
export interface ReceivedPrice {
  selling_price: number;
  at: number;
  via: 'patch' | 'batch';
  previous_price: number;
  request_id?: string;
  batch_id?: number;
}

export interface OfferPriceHistory {
  offer_id: number;
  count: number;
  min: number;
  max: number;
  unchanged: number;
  /** The latest entries, at most MAX_ENTRIES_PER_OFFER (counts cover them all). */
  received: ReceivedPrice[];
}

export interface PriceLogSummary {
  total: number;
  duplicates: { request_id: number; within_batch: number; unchanged_price: number };
  offers: OfferPriceHistory[];
}

const MAX_ENTRIES_PER_OFFER = 1_000;
const MAX_REQUEST_IDS = 100_000;

export class PriceLog {
  private readonly byOffer = new Map<number, OfferPriceHistory>();
  private readonly seenRequestIds = new Set<string>();
  private total = 0;
  private duplicateRequestIds = 0;
  private duplicatesWithinBatch = 0;
  private unchangedPrices = 0;

  /** Notes a request id; true when it was seen before. Called once per request, before its prices. */
  noteRequestId(requestId: string | undefined): boolean {
    if (requestId === undefined) return false;
    if (this.seenRequestIds.has(requestId)) {
      this.duplicateRequestIds += 1;
      return true;
    }
    // Bounded memory: the oldest ids are forgotten first (a Set iterates in insertion order).
    if (this.seenRequestIds.size >= MAX_REQUEST_IDS) this.seenRequestIds.delete(this.seenRequestIds.values().next().value as string);
    this.seenRequestIds.add(requestId);
    return false;
  }

  noteDuplicateInBatch(): void {
    this.duplicatesWithinBatch += 1;
  }

  record(offerId: number, entry: ReceivedPrice): void {
    const history = this.byOffer.get(offerId) ?? {
      offer_id: offerId,
      count: 0,
      min: entry.selling_price,
      max: entry.selling_price,
      unchanged: 0,
      received: [],
    };
    history.count += 1;
    history.min = Math.min(history.min, entry.selling_price);
    history.max = Math.max(history.max, entry.selling_price);
    if (entry.selling_price === entry.previous_price) {
      history.unchanged += 1;
      this.unchangedPrices += 1;
    }
    history.received.push(entry);
    if (history.received.length > MAX_ENTRIES_PER_OFFER) history.received.shift();
    this.byOffer.set(offerId, history);
    this.total += 1;
  }

  summary(): PriceLogSummary {
    return {
      total: this.total,
      duplicates: { request_id: this.duplicateRequestIds, within_batch: this.duplicatesWithinBatch, unchanged_price: this.unchangedPrices },
      offers: [...this.byOffer.values()].sort((a, b) => a.offer_id - b.offer_id).map((history) => structuredClone(history)),
    };
  }
}
