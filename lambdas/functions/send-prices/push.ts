import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { transitionPriceChange } from '../../data/price-changes/status.js';
import { givePushBack } from '../../data/price-changes/sending.js';
import {
  MarketplaceNotFound,
  MarketplaceRateLimited,
  MarketplaceRejected,
  MarketplaceUnauthorized,
  MarketplaceUnavailable,
  type PriceUpdate,
} from '../../marketplace/port.js';
import { loopMetrics } from '../../observability/loop-metrics.js';
import { withMarketplaceRetries, type RetryOptions } from '../../marketplace/retrying.js';
import { recheck, type CheckedPush, type Screened } from './guard.js';
import { type Gate, type OpenGate } from './gate.js';

/**
 * The pipeline's third step: the marketplace call, through the connection's port, of prices the
 * guard checked (`CheckedPush`: no other price can be pushed). A push token goes on every change
 * first (with the price and the day it counted on, so a push whose outcome is lost is
 * recognised, never repeated blindly), then one batch request. A later attempt (withMarketplaceRetries
 * after a short 429; the same prices again after a 5xx) goes out only after the guard's `recheck`.
 *
 * What a fault says about the batch decides what may follow it. A definite refusal (429,
 * 401/403, 400, 404: the marketplace answered and did not take the batch) may be tried again.
 * Any other fault after the request left (a timeout, a reset, a 5xx whatever its body says, a
 * 2xx without the documented answer) may have come after the marketplace took the batch: the
 * push is in doubt (PushInDoubt, which no retry repeats) and is told before any second push
 * (doubt.ts). The adapter does not tell a connection refused before sending from one reset
 * after it, so every such fault is treated as a doubt: one offer read more, never a price twice.
 */
export interface PushDeps {
  /** The clock, a sleep, and the marketplace retries' settings (tests move the clock past a wait instead of sleeping). */
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly retry?: Partial<RetryOptions>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class GateClosed extends Error {
  override readonly name = 'GateClosed';
  constructor(readonly gate: Gate) {
    super('the connection may not send now');
  }
}

export class PushInDoubt extends Error {
  override readonly name = 'PushInDoubt';
  /** The marketplace answered (a 5xx), quickly: the same prices may go again at once (an absolute price pushed twice lands once). */
  readonly answered: boolean;
  constructor(cause: unknown) {
    super(`the push may have reached the marketplace: ${(cause as Error | undefined)?.message ?? String(cause)}`, { cause });
    this.answered = cause instanceof MarketplaceUnavailable && cause.status !== undefined;
  }
}

/** Every price of the batch left its bounds before the attempt: nothing was sent. */
export class NothingLeft extends Error {
  override readonly name = 'NothingLeft';
  constructor() {
    super('no price of the batch is inside its bounds now');
  }
}

/** The marketplace answered and did not take the request. */
export const refusedForCertain = (error: unknown): boolean =>
  error instanceof MarketplaceRateLimited ||
  error instanceof MarketplaceUnauthorized ||
  error instanceof MarketplaceRejected ||
  error instanceof MarketplaceNotFound;

/** The marketplace's answer to a push; a fault after which it may have taken the push becomes PushInDoubt. */
export const sendOnce = async <T>(send: () => Promise<T>): Promise<T> => {
  try {
    return await send();
  } catch (error) {
    if (refusedForCertain(error)) throw error;
    throw new PushInDoubt(error);
  }
};

/** The batch request's updates: only checked prices (guard.ts) become one. */
export const priceUpdates = (pushes: readonly CheckedPush[]): PriceUpdate[] =>
  pushes.map((push) => ({ offerId: push.change.stored.record.offer_id, sellingPrice: push.price }));

/** One push's attempts, as withMarketplaceRetries tries them, and what they left. */
export class PushAttempts {
  /** What the last attempt carried: once the marketplace took the batch, its prices. */
  carried: CheckedPush[];
  /** Pushes an attempt left out because their bounds had moved (before any attempt was in doubt: never sent). */
  readonly outside: Screened<CheckedPush>[] = [];
  /** An earlier attempt is in doubt: it may have landed, whatever the next attempts meet. */
  inDoubt = false;
  /** Pushes left out of an attempt after one in doubt: they stay in doubt, told before any other price. */
  readonly heldInDoubt: CheckedPush[] = [];

  constructor(
    private readonly clientId: string,
    private readonly connector: string,
    pushes: readonly CheckedPush[],
    /** The gate the guard just read, for a first attempt right behind it; undefined: every attempt is checked again. */
    private fresh: OpenGate | undefined,
    private readonly deps: PushDeps,
  ) {
    this.carried = [...pushes];
  }

  /** One attempt: the batch id the marketplace gave. */
  async attempt(): Promise<string> {
    let gate = this.fresh;
    this.fresh = undefined;
    if (!gate) {
      const now = await recheck(this.clientId, this.connector, this.carried, this.deps.now());
      if (now.inside === undefined) throw new GateClosed(now.gate);
      if (this.inDoubt) this.heldInDoubt.push(...now.outside.map((screened) => screened.push));
      else this.outside.push(...now.outside);
      this.carried = now.inside;
      gate = now.gate;
    }
    if (this.carried.length === 0) throw new NothingLeft();
    const updates = priceUpdates(this.carried);
    const port = gate.port;
    const apiKey = gate.apiKey;
    return (await sendOnce(() => port.sendPrices(apiKey, updates))).batchId;
  }
}

/** What a push left: its token and day, the batch the marketplace gave (none: `fault`), and its attempts. */
export interface Pushed {
  readonly token: string;
  readonly day: string;
  readonly batchId: string | undefined;
  readonly fault: unknown;
  readonly attempts: PushAttempts;
}

/**
 * Pushes one batch of checked prices, already counted toward their offers' daily caps on `day`.
 * `fresh`: the gate the guard read just now (the first attempt goes behind it); without it,
 * the first attempt is checked again too (a part of a batch pushed again). Undefined when no
 * change could be marked (another run or the client moved them on: never pushed, not counted).
 */
export const push = async (
  clientId: string,
  connector: string,
  pushes: readonly CheckedPush[],
  day: string,
  fresh: OpenGate | undefined,
  deps: PushDeps,
): Promise<Pushed | undefined> => {
  const token = crypto.randomUUID();
  const startedAt = iso(deps.now());
  // A retry time of an earlier fault is cleared: with the token, it would say when to doubt this push.
  const moved = await mapLimit(
    pushes,
    (one) =>
      transitionPriceChange(clientId, one.change.ref, {
        from: ['pending'],
        sender: { pushToken: token, pushStartedAt: startedAt, pushPrice: one.price, pushDay: day, retryAt: null },
        now: startedAt,
      }),
    PRICE_SENDING.parallelCalls,
  );
  const marked = pushes.filter((_push, index) => moved[index] !== undefined);
  await mapLimit(
    pushes.filter((_push, index) => moved[index] === undefined),
    (one) => givePushBack(clientId, one.change.stored.record.product_code, one.change.stored.record.offer_id, day),
    PRICE_SENDING.parallelCalls,
  );
  if (marked.length === 0) return undefined;
  const attempts = new PushAttempts(clientId, connector, marked, fresh, deps);
  let batchId: string | undefined;
  let fault: unknown;
  for (let repush = 0; batchId === undefined; repush++) {
    try {
      batchId = await withMarketplaceRetries(() => attempts.attempt(), { ...deps.retry, maxWaitMs: PRICE_SENDING.rateLimitWaitMaxMs });
    } catch (error) {
      fault = error;
      if (!(error instanceof PushInDoubt)) break;
      attempts.inDoubt = true;
      // A 5xx: the same prices again after a short wait, behind the guard's recheck (the daily
      // cap counted them once, under this token). A timeout is not repeated.
      const wait = PRICE_SENDING.repushWaitsMs[repush];
      if (!error.answered || wait === undefined) break;
      loopMetrics.pushFailed(connector, error);
      await deps.sleep(wait);
    }
  }
  return { token, day, batchId, fault, attempts };
};
