import { transitionPriceChange, type PriceChangeRef, type StoredSendable } from '../shared/data/price-change-status.js';
import type { BatchStatus } from '../shared/marketplace/port.js';
import type { PriceChange } from '../shared/domain/records.js';

/**
 * A sent price change's outcome, however it is learned (the batch's status read after sending,
 * a Batch Completed event, the sweep's look at the batch or at the offer as synced): `applied`,
 * or, for a step of a capped move, `pending` again from the confirmed price (the next step is
 * sent like a new decision); refused: `failed` with the marketplace's message. Conditional on
 * `sent`, so an outcome learned twice is written once.
 */
export const settleSent = async (
  clientId: string,
  change: { readonly ref: PriceChangeRef; readonly record: PriceChange },
  outcome: { readonly ok: true } | { readonly ok: false; readonly message: string },
  now: string,
): Promise<PriceChange | undefined> => {
  const { record, ref } = change;
  if (!outcome.ok) {
    return transitionPriceChange(clientId, ref, {
      from: ['sent'],
      to: 'failed',
      fields: { status_reason: `The marketplace refused it: ${outcome.message}` },
      now,
    });
  }
  const sent = record.sent_price ?? record.new_price;
  if (sent !== record.new_price) {
    return transitionPriceChange(clientId, ref, {
      from: ['sent'],
      to: 'pending',
      fields: { status_reason: `Moved to ${sent} on the way to ${record.new_price}: one push moves a price by at most the connection's step cap.` },
      sender: { confirmedPrice: sent, batchId: null },
      now,
    });
  }
  return transitionPriceChange(clientId, ref, { from: ['sent'], to: 'applied', fields: { applied_at: now, status_reason: null }, now });
};

/** The outcome of each offer of a settled batch; undefined while it is still pending. */
export const outcomesOf = (status: BatchStatus, offerIds: readonly string[]): Map<string, { ok: true } | { ok: false; message: string }> | undefined => {
  if (status.state === 'pending') return undefined;
  const byOffer = new Map(status.results.map((result) => [result.offerId, result]));
  return new Map(
    offerIds.map((offerId) => {
      const result = byOffer.get(offerId);
      if (result) return [offerId, result.ok ? { ok: true as const } : { ok: false as const, message: result.message ?? 'refused' }];
      // No line for the offer: the batch's own verdict stands for it.
      return [offerId, status.state === 'succeeded' ? { ok: true as const } : { ok: false as const, message: 'the batch failed' }];
    }),
  );
};

/** Applies a settled batch's outcome to the changes it carried that are still `sent`. */
export const settleBatch = async (clientId: string, changes: readonly StoredSendable[], status: BatchStatus, now: string): Promise<number> => {
  const sent = changes.filter((change) => change.stored.record.status === 'sent' && change.batchId === status.batchId);
  const outcomes = outcomesOf(
    status,
    sent.map((change) => change.stored.record.offer_id),
  );
  if (!outcomes) return 0;
  let settled = 0;
  for (const change of sent) {
    const outcome = outcomes.get(change.stored.record.offer_id) ?? { ok: false as const, message: 'no outcome' };
    if (await settleSent(clientId, { ref: change.ref, record: change.stored.record }, outcome, now)) settled += 1;
  }
  return settled;
};
