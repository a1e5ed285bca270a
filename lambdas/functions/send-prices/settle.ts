import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { countPricesSent, givePushBack, savePushedBatch, saveSentBatch } from '../../data/price-changes/sending.js';
import { forgetDecision, noteConfirmedPrice } from '../../data/repricing/decision-states.js';
import { transitionPriceChange, type PriceChangeRef, type Transition } from '../../data/price-changes/status.js';
import type { BatchStatus } from '../../marketplace/port.js';
import type { PriceChange } from '../../domain/records.js';
import { logger } from '../../observability/logger.js';
import { loopMetrics } from '../../observability/loop-metrics.js';
import type { CheckedPush } from './guard.js';
import type { OpenGate } from './gate.js';
import type { Ending } from './plan-change.js';
import type { Pushed, PushDeps } from './push.js';
import { HELD, type SellerApiReads } from './seller-api.js';
import { endOutside, keepInDoubt, recordPushFault } from './settle-faults.js';

/**
 * The pipeline's last step: what each change became, recorded (every move conditional on the
 * status it leaves, so a run that runs again moves nothing twice). A change planned to end
 * without a push ends; a batch the marketplace took is `sent`, or `applied` when its status,
 * looked at a few times right after, already says so; a push that met a fault keeps its
 * changes `pending`, with their next try or in doubt (settle-faults.ts). What is not confirmed
 * here is confirmed later (confirm.ts).
 *
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

const iso = (ms: number) => new Date(ms).toISOString();
const eachOf = <T, U>(items: readonly T[], work: (item: T) => Promise<U>) => mapLimit(items, work, PRICE_SENDING.parallelCalls);

/** Ends the changes planned to end without a push; one that ended for a reason of the connection is forgotten by the evaluator, to be decided again. */
export const settleEndings = async (clientId: string, endings: readonly Ending[], now: string): Promise<void> => {
  await eachOf(endings, async (ending) => {
    const moved = await transitionPriceChange(clientId, ending.change.ref, {
      from: ['pending'],
      to: ending.to,
      fields: { status_reason: ending.reason, ...(ending.to === 'applied' ? { applied_at: now } : {}) },
      now,
    });
    if (moved && ending.forget) await forgetDecision(clientId, moved, ending.change.ref.sk);
  });
};

/**
 * Looks at a batch's status a few times right after sending: most batches settle within
 * seconds, and a change confirmed here is written once (applied) instead of twice (sent, then
 * applied). Undefined when it has not settled by the last look, could not be read, or the
 * seller API is on hold.
 */
const outcomesSoon = async (reads: SellerApiReads, batchId: string, offerIds: readonly string[], deps: PushDeps): Promise<Map<string, Outcome> | undefined> => {
  for (const wait of PRICE_SENDING.confirmPollsMs) {
    await deps.sleep(wait);
    try {
      const status = await reads.read((port, apiKey) => port.readBatch(apiKey, batchId));
      if (status === HELD) return undefined;
      const outcomes = outcomesOf(status, offerIds);
      if (outcomes) return outcomes;
    } catch {
      return undefined; // The sweep (or the Batch Completed event) confirms it later.
    }
  }
  return undefined;
};

/** Records a batch the marketplace took: each change `applied` (or refused) when its outcome is known, else `sent`. */
const recordTaken = async (
  clientId: string,
  connector: string,
  reads: SellerApiReads,
  taken: readonly CheckedPush[],
  batch: { token: string; day: string; id: string; sharedToken: boolean },
  deps: PushDeps,
) => {
  const sentAt = iso(deps.now());
  // First, so a run that stops from here on leaves its doubt to be told from the batch; not when
  // the token also marks pushes this batch left out (held in doubt), which its status would not tell.
  if (!batch.sharedToken) await savePushedBatch(clientId, connector, batch.token, batch.id, deps.now());
  const outcomes = await outcomesSoon(
    reads,
    batch.id,
    taken.map((push) => push.change.stored.record.offer_id),
    deps,
  );
  const now = iso(deps.now());
  const cleared = { batchId: batch.id, pushToken: null, pushStartedAt: null, pushPrice: null, attempts: null, retryAt: null };
  const unconfirmed = taken.filter((push) => outcomes?.get(push.change.stored.record.offer_id) === undefined);
  await eachOf(
    taken.filter((push) => !unconfirmed.includes(push)),
    (push) => {
      const { record } = push.change.stored;
      return recordOutcome(clientId, { ref: push.change.ref, record, pushDay: batch.day }, push.price, outcomes!.get(record.offer_id)!, {
        from: ['pending'],
        token: batch.token,
        fields: { sent_price: push.price, sent_at: sentAt },
        sender: cleared,
        now,
      });
    },
  );
  // Not confirmed yet: `sent`, with the batch remembered for its Batch Completed event and the sweep.
  if (unconfirmed.length > 0) {
    await saveSentBatch(
      clientId,
      connector,
      batch.id,
      unconfirmed.map((push) => push.change.ref),
      deps.now(),
    );
    await eachOf(unconfirmed, (push) =>
      transitionPriceChange(clientId, push.change.ref, {
        from: ['pending'],
        to: 'sent',
        token: batch.token,
        fields: { sent_price: push.price, sent_at: sentAt },
        sender: cleared,
        now,
      }),
    );
  }
  await countPricesSent(clientId, connector, taken.length);
  logger.info('Prices sent', { connector, batchId: batch.id, prices: taken.length, confirmed: taken.length - unconfirmed.length });
};

/**
 * Records what a push left: the prices an attempt left out (their bounds moved), then the batch
 * taken or the fault. `pushAgain` pushes a part of the batch again (a batch refused whole for one
 * of its prices is split until the prices refused are alone).
 */
export const settle = async (
  clientId: string,
  gate: OpenGate,
  reads: SellerApiReads,
  pushed: Pushed,
  pushAgain: (part: readonly CheckedPush[]) => Promise<void>,
  deps: PushDeps,
): Promise<void> => {
  const { connector } = gate.stored.record;
  const { token, day, batchId, fault, attempts } = pushed;
  await endOutside(clientId, attempts.outside, token, day, iso(deps.now()));
  if (batchId === undefined) {
    loopMetrics.pushFailed(connector, fault);
    const { carried: pushes, heldInDoubt, inDoubt } = attempts;
    await recordPushFault(clientId, { gate, pushes, heldInDoubt, inDoubt, token, day, error: fault, reads, pushAgain }, deps);
    return;
  }
  // Left out of the attempt that went, after one in doubt: still in doubt.
  if (attempts.heldInDoubt.length > 0) await keepInDoubt(clientId, attempts.heldInDoubt, token, deps.now(), false);
  loopMetrics.pushOutcome(connector, 'accepted');
  await recordTaken(clientId, connector, reads, attempts.carried, { token, day, id: batchId, sharedToken: attempts.heldInDoubt.length > 0 }, deps);
};
