import { MarketplaceNotFound, MarketplaceRateLimited, MarketplaceRejected, MarketplaceUnauthorized, MarketplaceUnavailable } from '../../marketplace/port.js';
import { screenNow, type Screened } from './bounds.js';
import { mayPush, readGate, type Gate } from './gate.js';
import type { PushDeps } from './push-deps.js';
import type { Push } from './safety.js';

/**
 * One batch push as withMarketplaceRetries tries it. Each attempt goes out only if the
 * connection may still send at that moment (the kill switch, a pause, the seller-API hold), and
 * carries only the prices still inside their bounds at that moment (bounds.ts).
 *
 * What a fault says about the batch decides what may follow it. A definite refusal (429,
 * 401/403, 400, 404: the marketplace answered and did not take the batch) may be tried again.
 * Any other fault after the request left (a timeout, a reset, a 5xx whatever its body says, a
 * 2xx without the documented answer) may have come after the marketplace took the batch: the
 * push is in doubt (PushInDoubt, which no retry repeats) and is confirmed before any second
 * push (doubt.ts). The adapter does not tell a connection refused before sending from one reset
 * after it, so every such fault is treated as a doubt: one offer read more, never a price twice.
 */
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

export class PushAttempts {
  /** What the last attempt carried: once the marketplace took the batch, its prices. */
  carried: Push[];
  /** Pushes an attempt left out because their bounds had moved (before any attempt was in doubt: never sent). */
  readonly outside: Screened[] = [];
  /** An earlier attempt is in doubt: it may have landed, whatever the next attempts meet. */
  inDoubt = false;
  /** Pushes left out of an attempt after one in doubt: they stay in doubt, told before any other price. */
  readonly heldInDoubt: Push[] = [];

  constructor(
    private readonly clientId: string,
    private readonly connector: string,
    pushes: readonly Push[],
    private readonly deps: PushDeps,
  ) {
    this.carried = [...pushes];
  }

  /** One attempt: the batch id the marketplace gave. */
  async attempt(): Promise<string> {
    const gate = await readGate(this.clientId, this.connector, this.deps.now());
    if (gate.kind !== 'open' || !this.carried.every((push) => mayPush(gate, push.change.requested === true))) throw new GateClosed(gate);
    const screening = await screenNow(this.clientId, this.connector, this.carried);
    if (this.inDoubt) this.heldInDoubt.push(...screening.outside.map((screened) => screened.push));
    else this.outside.push(...screening.outside);
    this.carried = screening.inside;
    if (this.carried.length === 0) throw new NothingLeft();
    const updates = this.carried.map((push) => ({ offerId: push.change.stored.record.offer_id, sellingPrice: push.price }));
    return (await sendOnce(() => gate.port.sendPrices(gate.apiKey, updates))).batchId;
  }
}
