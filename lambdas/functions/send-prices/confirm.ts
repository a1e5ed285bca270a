import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { givePushBack } from '../../data/price-changes/sending.js';
import { noteConfirmedPrice } from '../../data/repricing/decision-states.js';
import { transitionPriceChange, type PriceChangeRef, type StoredSendable, type Transition } from '../../data/price-changes/status.js';
import type { BatchStatus } from '../../marketplace/port.js';
import type { PriceChange } from '../../domain/records.js';

/**
 * A sent price change's outcome, however it is learned (the batch's status read after sending,
 * a Batch Completed event, the sweep's look at the batch or at the offer as synced): `applied`,
 * or, for a step of a capped move, `pending` again from the confirmed price (the next step is
 * sent like a new decision); refused: `failed` with the marketplace's message. Conditional on
 * `sent`, so an outcome learned twice is written once.
 */
export type Outcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** Where a pushed price change goes once its outcome is known: `applied`, `pending` for a capped move's next step, or `failed`. */
export const outcomeMove = (record: PriceChange, sentPrice: number, outcome: Outcome, now: string): Pick<Transition, 'to' | 'fields' | 'sender'> => {
  if (!outcome.ok) return { to: 'failed', fields: { status_reason: `The marketplace refused it: ${outcome.message}` } };
  if (sentPrice !== record.new_price) {
    return {
      to: 'pending',
      fields: { status_reason: `Moved to ${sentPrice} on the way to ${record.new_price}: one push moves a price by at most the connection's step cap.` },
      sender: { confirmedPrice: sentPrice, batchId: null },
    };
  }
  return { to: 'applied', fields: { applied_at: now, status_reason: null } };
};

/** A pushed change as its outcome is recorded: with the day its push was counted on, when known. */
export interface PushedChange {
  readonly ref: PriceChangeRef;
  readonly record: PriceChange;
  readonly pushDay?: string | undefined;
}

/**
 * Records a pushed change's outcome (from `sent`, or from `pending` with its push token when
 * learned right after the push); an accepted price is also noted on the offer's decision state,
 * where the next push for the offer starts from it. A refused one gives its push back to the
 * offer's daily cap: the marketplace did not take it.
 */
export const recordOutcome = async (
  clientId: string,
  change: PushedChange,
  sentPrice: number,
  outcome: Outcome,
  move: Pick<Transition, 'from' | 'token' | 'fields' | 'sender'> & { readonly now: string },
): Promise<PriceChange | undefined> => {
  const next = outcomeMove(change.record, sentPrice, outcome, move.now);
  const moved = await transitionPriceChange(clientId, change.ref, {
    ...move,
    ...(next.to === undefined ? {} : { to: next.to }),
    fields: { ...move.fields, ...next.fields },
    sender: { ...move.sender, ...next.sender },
  });
  if (moved && outcome.ok) await noteConfirmedPrice(clientId, change.record, sentPrice, move.now);
  if (moved && !outcome.ok && change.pushDay !== undefined) await givePushBack(clientId, change.record.product_code, change.record.offer_id, change.pushDay);
  return moved;
};

export const settleSent = (clientId: string, change: PushedChange, outcome: Outcome, now: string): Promise<PriceChange | undefined> =>
  recordOutcome(clientId, change, change.record.sent_price ?? change.record.new_price, outcome, { from: ['sent'], now });

/** The outcome of each offer of a settled batch; undefined while it is still pending. */
export const outcomesOf = (status: BatchStatus, offerIds: readonly string[]): Map<string, Outcome> | undefined => {
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
  const moved = await mapLimit(
    sent,
    (change) =>
      settleSent(
        clientId,
        { ref: change.ref, record: change.stored.record, pushDay: change.pushDay },
        outcomes.get(change.stored.record.offer_id) ?? { ok: false, message: 'no outcome' },
        now,
      ),
    PRICE_SENDING.parallelCalls,
  );
  const settled = moved.filter((record) => record !== undefined).length;
  return settled;
};
