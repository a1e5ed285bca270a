import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { transitionPriceChange } from '../../data/price-changes/status.js';
import { countPricesSent, givePushBack, savePushedBatch, saveSentBatch } from '../../data/price-changes/sending.js';
import { utcDay } from '../../domain/price-push.js';
import { logger } from '../../observability/logger.js';
import { loopMetrics } from '../../observability/loop-metrics.js';
import { withMarketplaceRetries } from '../../marketplace/retrying.js';
import { outcomesOf, recordOutcome, type Outcome } from './confirm.js';
import { PushAttempts, PushInDoubt } from './push-attempt.js';
import type { PushDeps } from './push-deps.js';
import { endOutside, keepInDoubt, recordPushFault } from './push-faults.js';
import { breakerTripped, latestPerOffer, withinDailyCap, type OpenGate, type Push } from './safety.js';
import { HELD, type SellerApiReads } from './seller-api.js';

/**
 * Pushing planned prices: the safety caps first (the circuit breaker over the connection's sharp
 * drops, then each offer's daily cap), then a push token on every change (so a push whose
 * outcome is lost is recognised, not repeated blindly), then the batch, each attempt behind a
 * fresh look at the connection (the kill switch, the seller-API hold) and at the prices' bounds
 * (push-attempt.ts), then `sent` and a few looks at the batch's status. A fault keeps every
 * change `pending`, with its next try or, when the marketplace may have taken the push, in
 * doubt until that is told (push-faults.ts); nothing is lost and nothing is sent twice.
 */
const iso = (ms: number) => new Date(ms).toISOString();
/** Each change's own writes, a few at once. */
const eachOf = <T, U>(items: readonly T[], work: (item: T) => Promise<U>) => mapLimit(items, work, PRICE_SENDING.parallelCalls);

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
  gate: OpenGate,
  reads: SellerApiReads,
  taken: readonly Push[],
  batch: { token: string; day: string; id: string; sharedToken: boolean },
  deps: PushDeps,
) => {
  const { connector } = gate.stored.record;
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

/** One batch of pushes already counted toward their offers' daily caps on `day`. */
const pushBatch = async (clientId: string, gate: OpenGate, reads: SellerApiReads, pushes: readonly Push[], day: string, deps: PushDeps): Promise<void> => {
  const { connector } = gate.stored.record;
  const token = crypto.randomUUID();
  const startedAt = iso(deps.now());
  // A retry time of an earlier fault is cleared: with the token, it would say when to doubt this push.
  const moved = await eachOf(pushes, (push) =>
    transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      sender: { pushToken: token, pushStartedAt: startedAt, pushPrice: push.price, pushDay: day, retryAt: null },
      now: startedAt,
    }),
  );
  const marked = pushes.filter((_push, index) => moved[index] !== undefined);
  // Moved on meanwhile (another run, the client): never pushed, so not counted.
  await eachOf(
    pushes.filter((_push, index) => moved[index] === undefined),
    (push) => givePushBack(clientId, push.change.stored.record.product_code, push.change.stored.record.offer_id, day),
  );
  if (marked.length === 0) return;
  const attempts = new PushAttempts(clientId, connector, marked, deps);
  let batchId: string | undefined;
  let fault: unknown;
  for (let repush = 0; batchId === undefined; repush++) {
    try {
      batchId = await withMarketplaceRetries(() => attempts.attempt(), { ...deps.retry, maxWaitMs: PRICE_SENDING.rateLimitWaitMaxMs });
    } catch (error) {
      fault = error;
      if (!(error instanceof PushInDoubt)) break;
      attempts.inDoubt = true;
      // A 5xx: the same prices again after a short wait, behind a fresh look at the gate and the
      // bounds (the daily cap counted them once, under this token). A timeout is not repeated.
      const wait = PRICE_SENDING.repushWaitsMs[repush];
      if (!error.answered || wait === undefined) break;
      loopMetrics.pushFailed(connector, error);
      await deps.sleep(wait);
    }
  }
  await endOutside(clientId, attempts.outside, token, day, iso(deps.now()));
  if (batchId === undefined) {
    loopMetrics.pushFailed(connector, fault);
    await recordPushFault(
      clientId,
      {
        gate,
        pushes: attempts.carried,
        heldInDoubt: attempts.heldInDoubt,
        inDoubt: attempts.inDoubt,
        token,
        day,
        error: fault,
        reads,
        pushAgain: (part) => pushBatch(clientId, gate, reads, part, day, deps),
      },
      deps,
    );
    return;
  }
  // Left out of the attempt that went, after one in doubt: still in doubt.
  if (attempts.heldInDoubt.length > 0) await keepInDoubt(clientId, attempts.heldInDoubt, token, deps.now(), false);
  loopMetrics.pushOutcome(connector, 'accepted');
  await recordTaken(clientId, gate, reads, attempts.carried, { token, day, id: batchId, sharedToken: attempts.heldInDoubt.length > 0 }, deps);
};

export const pushAll = async (clientId: string, gate: OpenGate, plans: readonly Push[], reads: SellerApiReads, deps: PushDeps): Promise<void> => {
  const nowMs = deps.now();
  const latest = await latestPerOffer(clientId, plans, iso(nowMs));
  if (latest.length === 0) return;
  if (await breakerTripped(clientId, gate, latest, nowMs)) return;
  const day = utcDay(nowMs);
  const capped = await withinDailyCap(clientId, gate, latest, day, nowMs);
  // As many updates a push as the marketplace's adapter takes in one batch request (marketplaces.ts).
  const { maxBatchUpdates } = gate.marketplace;
  for (let i = 0; i < capped.length; i += maxBatchUpdates) {
    await pushBatch(clientId, gate, reads, capped.slice(i, i + maxBatchUpdates), day, deps);
  }
};
