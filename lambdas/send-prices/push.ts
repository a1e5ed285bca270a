import { PRICE_SENDING } from '../shared/config/price-sending.js';
import { recordSyncOutcome } from '../shared/data/connections.js';
import { transitionPriceChange, type StoredSendable } from '../shared/data/price-change-status.js';
import { countPricesSent, countPush, enabledRepricerCount, holdSending, noteSharpDrop, saveSentBatch } from '../shared/data/price-sending.js';
import { breakerTrips, breakerWindow, isSharpDrop, retryDelayMs, utcDay } from '../shared/domain/price-push.js';
import { logger } from '../shared/logger.js';
import { MarketplaceRateLimited, MarketplaceRejected, MarketplaceUnauthorized, type BatchStatus } from '../shared/marketplace/port.js';
import { withMarketplaceRetries, type RetryOptions } from '../shared/marketplace/retrying.js';
import { settleBatch } from './confirm.js';
import { mayPush, readGate, type Gate } from './gate.js';
import type { Plan } from './plan.js';

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

type Push = Extract<Plan, { kind: 'push' }>;
type OpenGate = Extract<Gate, { kind: 'open' }>;

/** The connection closed between planning and the push: nothing is sent. */
class GateClosed extends Error {
  override readonly name = 'GateClosed';
  constructor(readonly gate: Gate) {
    super('the connection may not send now');
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The latest decision per offer goes; an older one in the same run is superseded (one price per offer per batch). */
const latestPerOffer = async (clientId: string, pushes: readonly Push[], now: string): Promise<Push[]> => {
  const latest = new Map<string, Push>();
  for (const push of pushes) {
    const offerId = push.change.stored.record.offer_id;
    const held = latest.get(offerId);
    if (!held || held.change.stored.record.id < push.change.stored.record.id) latest.set(offerId, push);
  }
  const kept = new Set(latest.values());
  for (const push of pushes.filter((p) => !kept.has(p))) {
    await transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      to: 'superseded',
      fields: { status_reason: 'A later decision for this offer took its place.' },
      now,
    });
  }
  return [...kept];
};

/** The breaker: trips (pausing the connection) when too many repriced offers would drop sharply in one window. */
const breakerTripped = async (clientId: string, gate: OpenGate, pushes: readonly Push[], nowMs: number): Promise<boolean> => {
  const { safety, connector } = gate.stored.record;
  const sharp = pushes.filter((push) => isSharpDrop(push.current, push.price, safety.breaker_drop_percent));
  if (sharp.length === 0) return false;
  const window = breakerWindow(nowMs, safety.breaker_window_minutes);
  let drops = 0;
  for (const push of sharp) drops = await noteSharpDrop(clientId, connector, window, push.change.stored.record.offer_id, nowMs);
  const repriced = await enabledRepricerCount(clientId);
  if (!breakerTrips(drops, repriced, safety.breaker_share_percent)) return false;
  const reason =
    `Paused by the circuit breaker: ${drops} of ${repriced} repriced offers would drop by more than ` +
    `${safety.breaker_drop_percent} % within ${safety.breaker_window_minutes} minutes. Nothing is sent until the connection is resumed.`;
  await recordSyncOutcome(clientId, gate.stored.record, { status: 'paused', last_error: reason });
  logger.warn('Circuit breaker tripped', { connector, drops, repriced });
  return true;
};

/** Each offer's daily cap: a push over it is `failed`, the others go on. */
const withinDailyCap = async (clientId: string, gate: OpenGate, pushes: readonly Push[], nowMs: number): Promise<Push[]> => {
  const cap = gate.stored.record.safety.max_changes_per_day;
  const day = utcDay(nowMs);
  const kept: Push[] = [];
  for (const push of pushes) {
    const { record } = push.change.stored;
    if (await countPush(clientId, record.product_code, record.offer_id, day, cap, nowMs)) kept.push(push);
    else {
      await transitionPriceChange(clientId, push.change.ref, {
        from: ['pending'],
        to: 'failed',
        fields: { status_reason: `Not sent: this offer's price was already pushed ${cap} times today (UTC), the connection's daily cap.` },
        now: iso(nowMs),
      });
    }
  }
  return kept;
};

/** Clears the push token (the push did not happen, or its fault is recorded), with the sender state to keep. */
const releaseAll = async (clientId: string, pushes: readonly Push[], token: string, now: string, sender: Record<string, unknown> = {}) => {
  for (const push of pushes) {
    await transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      token,
      sender: { pushToken: null, pushStartedAt: null, pushPrice: null, ...sender },
      now,
    });
  }
};

const sentView = (push: Push, batchId: string, now: string): StoredSendable => ({
  ...push.change,
  batchId,
  stored: { ...push.change.stored, record: { ...push.change.stored.record, status: 'sent', sent_price: push.price, sent_at: now } },
});

/** Looks at a batch's status a few times right after sending: most batches settle within seconds. */
const confirmSoon = async (clientId: string, gate: OpenGate, sent: readonly StoredSendable[], batchId: string, deps: PushDeps): Promise<void> => {
  for (const wait of PRICE_SENDING.confirmPollsMs) {
    await deps.sleep(wait);
    let status: BatchStatus;
    try {
      status = await gate.port.readBatch(gate.apiKey, batchId);
    } catch {
      return; // The sweep (or the Batch Completed event) confirms it later.
    }
    if ((await settleBatch(clientId, sent, status, iso(deps.now()))) > 0 || status.state !== 'pending') return;
  }
};

const pushBatch = async (clientId: string, gate: OpenGate, pushes: readonly Push[], deps: PushDeps): Promise<void> => {
  const { connector } = gate.stored.record;
  const token = crypto.randomUUID();
  const startedAt = iso(deps.now());
  const marked: Push[] = [];
  for (const push of pushes) {
    const moved = await transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      sender: { pushToken: token, pushStartedAt: startedAt, pushPrice: push.price },
      now: startedAt,
    });
    if (moved) marked.push(push);
  }
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
  } catch (error) {
    await recordPushFault(clientId, gate, marked, token, error, deps);
    return;
  }
  const sentAt = iso(deps.now());
  await saveSentBatch(
    clientId,
    connector,
    batchId,
    marked.map((push) => push.change.ref),
    deps.now(),
  );
  const sent: StoredSendable[] = [];
  for (const push of marked) {
    const moved = await transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      to: 'sent',
      token,
      fields: { sent_price: push.price, sent_at: sentAt },
      sender: { batchId, pushToken: null, pushStartedAt: null, pushPrice: null, attempts: null, retryAt: null },
      now: sentAt,
    });
    if (moved) sent.push(sentView(push, batchId, sentAt));
  }
  await countPricesSent(clientId, connector, sent.length);
  logger.info('Prices sent', { connector, batchId, prices: sent.length });
  await confirmSoon(clientId, gate, sent, batchId, deps);
};

const recordPushFault = async (clientId: string, gate: OpenGate, pushes: readonly Push[], token: string, error: unknown, deps: PushDeps): Promise<void> => {
  const nowMs = deps.now();
  const now = iso(nowMs);
  const { record } = gate.stored;
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
    for (const push of pushes) {
      await transitionPriceChange(clientId, push.change.ref, {
        from: ['pending'],
        to: 'failed',
        token,
        fields: { status_reason: `The marketplace refused it: ${error.message}` },
        sender: { pushToken: null, pushStartedAt: null, pushPrice: null },
        now,
      });
    }
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
  for (const push of pushes) {
    const attempts = (push.change.attempts ?? 0) + 1;
    const retryAt = iso(nowMs + retryDelayMs(attempts, PRICE_SENDING.retryBaseMs, PRICE_SENDING.retryMaxMs));
    await transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      token,
      sender: { pushToken: null, pushStartedAt: null, pushPrice: null, attempts, retryAt },
      now,
    });
  }
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
