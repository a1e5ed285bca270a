import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { recordSyncOutcome } from '../../data/connections/connections.js';
import { transitionPriceChange } from '../../data/price-changes/status.js';
import { givePushBack } from '../../data/price-changes/sending.js';
import { holdSellerApi } from '../../data/connections/seller-api-hold.js';
import { retryDelayMs } from '../../domain/price-push.js';
import { logger } from '../../observability/logger.js';
import { MarketplaceNotFound, MarketplaceRateLimited, MarketplaceRejected, MarketplaceUnauthorized } from '../../marketplace/port.js';
import type { CheckedPush, Screened } from './guard.js';
import type { OpenGate } from './gate.js';
import { GateClosed, NothingLeft, PushInDoubt, refusedForCertain, type PushDeps } from './push.js';
import { HELD, type SellerApiReads } from './seller-api.js';

/**
 * What a push that did not end in a batch leaves on its changes. The marketplace refused it for
 * certain: the push token is cleared and the day's count given back (the change waits, is tried
 * again later, or is `failed` when the refusal is about the price or the offer). It may have
 * taken it: the token stays, with a time to tell it by (doubt.ts), and the count stays too.
 */
const iso = (ms: number) => new Date(ms).toISOString();
const eachOf = <T, U>(items: readonly T[], work: (item: T) => Promise<U>) => mapLimit(items, work, PRICE_SENDING.parallelCalls);
const CLEARED_TOKEN = { pushToken: null, pushStartedAt: null, pushPrice: null } as const;
export const OFFER_GONE_REASON = 'The marketplace no longer has this offer.';

/** Ends a push the marketplace did not take: its token cleared, and its change moved (`failed` with a reason) or left `pending`. */
export const endUntaken = async (clientId: string, pushes: readonly CheckedPush[], token: string, day: string, now: string, reason?: string): Promise<void> => {
  await eachOf(pushes, async (push) => {
    const moved = await transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      token,
      ...(reason === undefined ? {} : { to: 'failed' as const, fields: { status_reason: reason } }),
      sender: CLEARED_TOKEN,
      now,
    });
    // Given back only by the run that cleared the token: a redelivery finds it cleared and gives nothing.
    const { record } = push.change.stored;
    if (moved) await givePushBack(clientId, record.product_code, record.offer_id, day);
  });
};

/** Pushes an attempt left out because their bounds moved: `failed`, or planned again. */
export const endOutside = async (clientId: string, outside: readonly Screened<CheckedPush>[], token: string, day: string, now: string): Promise<void> => {
  await eachOf(outside, (screened) => endUntaken(clientId, [screened.push], token, day, now, screened.to === 'failed' ? screened.reason : undefined));
};

/** Not taken for a reason that may pass: the token cleared, the push given back, and a doubling wait before the next try. */
const retryLater = async (clientId: string, pushes: readonly CheckedPush[], token: string, day: string, nowMs: number): Promise<void> => {
  await eachOf(pushes, async (push) => {
    const attempts = (push.change.attempts ?? 0) + 1;
    const retryAt = iso(nowMs + retryDelayMs(attempts, PRICE_SENDING.retryBaseMs, PRICE_SENDING.retryMaxMs));
    const moved = await transitionPriceChange(clientId, push.change.ref, {
      from: ['pending'],
      token,
      sender: { ...CLEARED_TOKEN, attempts, retryAt },
      now: iso(nowMs),
    });
    const { record } = push.change.stored;
    if (moved) await givePushBack(clientId, record.product_code, record.offer_id, day);
  });
};

/**
 * A push of one offer answered 404: `failed` when the marketplace has no such offer (its read
 * answers 404 too); otherwise the 404 was not about the offer (a route the marketplace lacks
 * for a while, say), and it is tried again later rather than failed.
 */
const offerGone = async (clientId: string, fault: PushFault, nowMs: number): Promise<void> => {
  const [push] = fault.pushes;
  const { connector } = fault.gate.stored.record;
  let offer: unknown;
  try {
    offer = await fault.reads.read((port, apiKey) => port.readOwnOffer(apiKey, push!.change.stored.record.offer_id), { retried: true });
  } catch {
    offer = HELD; // Not told now: tried again later.
  }
  if (offer === undefined) {
    logger.warn('Price push refused: offer gone', { connector });
    return endUntaken(clientId, fault.pushes, fault.token, fault.day, iso(nowMs), OFFER_GONE_REASON);
  }
  logger.warn('Price push answered 404 for an offer the marketplace has; tried again later', { connector });
  return retryLater(clientId, fault.pushes, fault.token, fault.day, nowMs);
};

/**
 * The push may have reached the marketplace: the token stays, with a time to tell it by. After a
 * 5xx (`answered`) soon: the same prices may go again at once (doubt.ts); after a timeout or an
 * undocumented answer, a doubling wait never under the doubt wait, time for a batch to show.
 */
export const keepInDoubt = async (clientId: string, pushes: readonly CheckedPush[], token: string, nowMs: number, answered: boolean): Promise<void> => {
  await eachOf(pushes, (push) => {
    const attempts = (push.change.attempts ?? 0) + 1;
    const waitMs = answered
      ? retryDelayMs(attempts, PRICE_SENDING.answeredDoubtRetryMs, PRICE_SENDING.pushInDoubtMs)
      : Math.max(PRICE_SENDING.pushInDoubtMs, retryDelayMs(attempts, PRICE_SENDING.retryBaseMs, PRICE_SENDING.retryMaxMs));
    return transitionPriceChange(clientId, push.change.ref, { from: ['pending'], token, sender: { attempts, retryAt: iso(nowMs + waitMs) }, now: iso(nowMs) });
  });
};

export interface PushFault {
  readonly gate: OpenGate;
  readonly pushes: readonly CheckedPush[];
  /** An attempt of the push was in doubt: it may have landed, whatever the last attempt met. */
  readonly inDoubt: boolean;
  /** Pushes left out of a later attempt (their bounds moved) after one in doubt. */
  readonly heldInDoubt: readonly CheckedPush[];
  readonly token: string;
  readonly day: string;
  readonly error: unknown;
  /** Pushes a part of the batch again (a 404 the marketplace does not say the offer of). */
  readonly pushAgain: (pushes: readonly CheckedPush[]) => Promise<void>;
  /** The run's seller-API reads (whether an offer answered 404 for is gone). */
  readonly reads: SellerApiReads;
}

/** A batch refused whole (a 400, a 404) for one of its prices: each half pushed again, until the prices refused are alone. */
const splitAndPushAgain = async (clientId: string, fault: PushFault, now: string): Promise<void> => {
  const { pushes, token } = fault;
  await eachOf(pushes, (push) => transitionPriceChange(clientId, push.change.ref, { from: ['pending'], token, sender: CLEARED_TOKEN, now }));
  const half = Math.ceil(pushes.length / 2);
  await fault.pushAgain(pushes.slice(0, half));
  await fault.pushAgain(pushes.slice(half));
};

export const recordPushFault = async (clientId: string, fault: PushFault, deps: PushDeps): Promise<void> => {
  const { gate, pushes, token, day, error } = fault;
  const nowMs = deps.now();
  const now = iso(nowMs);
  const { connector } = gate.stored.record;
  if (fault.inDoubt) return stillInDoubt(clientId, fault, nowMs);
  if (error instanceof NothingLeft) return;
  if (error instanceof GateClosed) return endUntaken(clientId, pushes, token, day, now);
  if (error instanceof MarketplaceUnauthorized) {
    await endUntaken(clientId, pushes, token, day, now);
    await recordSyncOutcome(clientId, gate.stored.record, {
      status: 'unauthorized',
      last_error: 'The marketplace refused the API key; put a new key to resume.',
    });
    logger.warn('Price push refused: key', { connector });
    return;
  }
  if (error instanceof MarketplaceRejected) {
    // Refused for a reason of the request: alone in its push, this price is the one; in a batch
    // the marketplace may not say which: each half goes again, as for a 404.
    if (pushes.length === 1) return endUntaken(clientId, pushes, token, day, now, `The marketplace refused it: ${error.message}`);
    return splitAndPushAgain(clientId, fault, now);
  }
  if (error instanceof MarketplaceRateLimited) {
    await endUntaken(clientId, pushes, token, day, now);
    await holdSellerApi(clientId, connector, iso(nowMs + error.retryAfterMs));
    logger.warn('Price push held: rate limited', { connector, retryAfterMs: error.retryAfterMs });
    return;
  }
  if (error instanceof MarketplaceNotFound) {
    // An offer is gone. Alone in its push, it is the one; in a batch the marketplace does not
    // say which: each half goes again, until the offers it lacks are alone (a few pushes, not one per offer).
    if (pushes.length === 1) return offerGone(clientId, fault, nowMs);
    return splitAndPushAgain(clientId, fault, now);
  }
  throw error;
};

/**
 * An attempt was in doubt: whatever a later one met (a 429, a refused key, the kill switch, the
 * bounds closing), the marketplace may have taken the earlier one, so every push stays in doubt
 * and is told (its batch, or the offer) before another price goes; the refusal still does what
 * it does to the connection (a hold, `unauthorized`).
 */
const stillInDoubt = async (clientId: string, fault: PushFault, nowMs: number): Promise<void> => {
  const { gate, error, token } = fault;
  const { connector } = gate.stored.record;
  const known = error instanceof PushInDoubt || refusedForCertain(error) || error instanceof GateClosed || error instanceof NothingLeft;
  if (!known) throw error;
  if (error instanceof MarketplaceUnauthorized) {
    await recordSyncOutcome(clientId, gate.stored.record, {
      status: 'unauthorized',
      last_error: 'The marketplace refused the API key; put a new key to resume.',
    });
  }
  if (error instanceof MarketplaceRateLimited) await holdSellerApi(clientId, connector, iso(nowMs + error.retryAfterMs));
  const pushes = [...fault.pushes, ...fault.heldInDoubt];
  await keepInDoubt(clientId, pushes, token, nowMs, error instanceof PushInDoubt && error.answered);
  logger.warn('Price push in doubt; told before any other price', { connector, fault: (error as Error).name, prices: pushes.length });
};
