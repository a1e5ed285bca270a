import { PRICE_SENDING } from '../shared/config/price-sending.js';
import { mapLimit } from '../shared/data/concurrency.js';
import { recordSyncOutcome } from '../shared/data/connections.js';
import { transitionPriceChange } from '../shared/data/price-change-status.js';
import { countPricesSent, holdSending, saveSentBatch } from '../shared/data/price-sending.js';
import { retryDelayMs } from '../shared/domain/price-push.js';
import { logger } from '../shared/logger.js';
import { loopMetrics } from '../shared/loop-metrics.js';
import { MarketplaceRateLimited, MarketplaceRejected, MarketplaceUnauthorized } from '../shared/marketplace/port.js';
import { withMarketplaceRetries, type RetryOptions } from '../shared/marketplace/retrying.js';
import { outcomesOf, recordOutcome, type Outcome } from './confirm.js';
import { mayPush, readGate, type Gate } from './gate.js';
import { breakerTripped, latestPerOffer, withinDailyCap, type OpenGate, type Push } from './safety.js';

/**
 * Pushing planned prices: the safety caps first (the circuit breaker over the connection's sharp
 * drops, then each offer's daily cap), then a push token on every change (so a push whose
 * outcome is lost is recognised, not repeated blindly), then the batch, each attempt behind a
 * fresh look at the connection (the kill switch), then `sent` and a few looks at the batch's
 * status. A fault keeps every change `pending` with its next try; nothing is lost.
 */
export interface PushDeps {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly retry?: Partial<RetryOptions>;
}

/** The connection closed between planning and the push: nothing is sent. */
class GateClosed extends Error {
  override readonly name = 'GateClosed';
  constructor(readonly gate: Gate) {
    super('the connection may not send now');
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
/** Each change's own writes, a few at once. */
const eachOf = <T, U>(items: readonly T[], work: (item: T) => Promise<U>) => mapLimit(items, work, PRICE_SENDING.parallelCalls);

/** Clears the push token (the push did not happen, or its fault is recorded), with the sender state to keep. */
const releaseAll = async (clientId: string, pushes: readonly Push[], token: string, now: string, sender: Record<string, unknown> = {}) => {
  await eachOf(pushes, (push) =>
    transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      token,
      sender: { pushToken: null, pushStartedAt: null, pushPrice: null, ...sender },
      now,
    }),
  );
};

/**
 * Looks at a batch's status a few times right after sending: most batches settle within
 * seconds, and a change confirmed here is written once (applied) instead of twice (sent, then
 * applied). Undefined when it has not settled by the last look (or could not be read).
 */
const outcomesSoon = async (gate: OpenGate, batchId: string, offerIds: readonly string[], deps: PushDeps): Promise<Map<string, Outcome> | undefined> => {
  for (const wait of PRICE_SENDING.confirmPollsMs) {
    await deps.sleep(wait);
    try {
      const outcomes = outcomesOf(await gate.port.readBatch(gate.apiKey, batchId), offerIds);
      if (outcomes) return outcomes;
    } catch {
      return undefined; // The sweep (or the Batch Completed event) confirms it later.
    }
  }
  return undefined;
};

const pushBatch = async (clientId: string, gate: OpenGate, pushes: readonly Push[], deps: PushDeps): Promise<void> => {
  const { connector } = gate.stored.record;
  const token = crypto.randomUUID();
  const startedAt = iso(deps.now());
  const moved = await eachOf(pushes, (push) =>
    transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      sender: { pushToken: token, pushStartedAt: startedAt, pushPrice: push.price },
      now: startedAt,
    }),
  );
  const marked = pushes.filter((_push, index) => moved[index] !== undefined);
  if (marked.length === 0) return;
  const updates = marked.map((push) => ({ offerId: push.change.stored.record.offer_id, sellingPrice: push.price }));
  let batchId: string;
  try {
    // Every attempt (the first and each retry) goes out only if the connection may still send at that moment.
    const result = await withMarketplaceRetries(
      async () => {
        const fresh = await readGate(clientId, connector, deps.now());
        if (fresh.kind !== 'open' || !marked.every((push) => mayPush(fresh, push.change.requested === true))) throw new GateClosed(fresh);
        return fresh.port.sendPrices(fresh.apiKey, updates);
      },
      { ...deps.retry, maxWaitMs: PRICE_SENDING.rateLimitWaitMaxMs },
    );
    batchId = result.batchId;
    loopMetrics.pushOutcome(connector, 'accepted');
  } catch (error) {
    await recordPushFault(clientId, gate, marked, token, error, deps);
    return;
  }
  const sentAt = iso(deps.now());
  const outcomes = await outcomesSoon(
    gate,
    batchId,
    marked.map((push) => push.change.stored.record.offer_id),
    deps,
  );
  const now = iso(deps.now());
  const cleared = { batchId, pushToken: null, pushStartedAt: null, pushPrice: null, attempts: null, retryAt: null };
  const unconfirmed = marked.filter((push) => outcomes?.get(push.change.stored.record.offer_id) === undefined);
  await eachOf(
    marked.filter((push) => !unconfirmed.includes(push)),
    (push) => {
      const { record } = push.change.stored;
      return recordOutcome(clientId, { ref: push.change.ref, record }, push.price, outcomes!.get(record.offer_id)!, {
        from: ['pending'],
        token,
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
      batchId,
      unconfirmed.map((push) => push.change.ref),
      deps.now(),
    );
    await eachOf(unconfirmed, (push) =>
      transitionPriceChange(clientId, push.change.ref, {
        from: ['pending'],
        to: 'sent',
        token,
        fields: { sent_price: push.price, sent_at: sentAt },
        sender: cleared,
        now,
      }),
    );
  }
  await countPricesSent(clientId, connector, marked.length);
  logger.info('Prices sent', { connector, batchId, prices: marked.length, confirmed: marked.length - unconfirmed.length });
};

const recordPushFault = async (clientId: string, gate: OpenGate, pushes: readonly Push[], token: string, error: unknown, deps: PushDeps): Promise<void> => {
  const nowMs = deps.now();
  const now = iso(nowMs);
  const { record } = gate.stored;
  loopMetrics.pushFailed(record.connector, error);
  if (error instanceof GateClosed) {
    await releaseAll(clientId, pushes, token, now);
    return;
  }
  if (error instanceof MarketplaceUnauthorized) {
    await releaseAll(clientId, pushes, token, now);
    await recordSyncOutcome(clientId, record, { status: 'unauthorized', last_error: 'The marketplace refused the API key; put a new key to resume.' });
    logger.warn('Price push refused: key', { connector: record.connector });
    return;
  }
  if (error instanceof MarketplaceRejected) {
    await eachOf(pushes, (push) =>
      transitionPriceChange(clientId, push.change.ref, {
        from: ['pending'],
        to: 'failed',
        token,
        fields: { status_reason: `The marketplace refused it: ${error.message}` },
        sender: { pushToken: null, pushStartedAt: null, pushPrice: null },
        now,
      }),
    );
    return;
  }
  if (error instanceof MarketplaceRateLimited) {
    await releaseAll(clientId, pushes, token, now);
    await holdSending(clientId, record.connector, iso(nowMs + error.retryAfterMs));
    logger.warn('Price push held: rate limited', { connector: record.connector, retryAfterMs: error.retryAfterMs });
    return;
  }
  const name = (error as Error | undefined)?.name ?? '';
  if (name !== 'MarketplaceUnavailable' && name !== 'MarketplaceMalformed') throw error;
  // Tried again later with a doubling wait; the 24-hour limit is planChange's.
  await eachOf(pushes, (push) => {
    const attempts = (push.change.attempts ?? 0) + 1;
    const retryAt = iso(nowMs + retryDelayMs(attempts, PRICE_SENDING.retryBaseMs, PRICE_SENDING.retryMaxMs));
    return transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      token,
      sender: { pushToken: null, pushStartedAt: null, pushPrice: null, attempts, retryAt },
      now,
    });
  });
  logger.warn('Price push failed; tried again later', { connector: record.connector, fault: name, prices: pushes.length });
};

export const pushAll = async (clientId: string, gate: OpenGate, plans: readonly Push[], deps: PushDeps): Promise<void> => {
  const nowMs = deps.now();
  const latest = await latestPerOffer(clientId, plans, iso(nowMs));
  if (latest.length === 0) return;
  if (await breakerTripped(clientId, gate, latest, nowMs)) return;
  const capped = await withinDailyCap(clientId, gate, latest, nowMs);
  for (let i = 0; i < capped.length; i += PRICE_SENDING.maxBatchUpdates) {
    await pushBatch(clientId, gate, capped.slice(i, i + PRICE_SENDING.maxBatchUpdates), deps);
  }
};
