import { PRICE_SENDING } from '../../config/price-sending.js';
import { countPricesSent, givePushBack, readPushedBatch } from '../../data/price-changes/sending.js';
import { readSendable, transitionPriceChange, type StoredSendable } from '../../data/price-changes/status.js';
import { logger } from '../../observability/logger.js';
import { MarketplaceNotFound, type BatchStatus } from '../../marketplace/port.js';
import type { Gate } from './gate.js';
import { planChange, type Plan, type ProductReads } from './plan-change.js';
import type { PushDeps } from './push.js';
import { HELD, type SellerApiReads } from './seller-api.js';
import { outcomesOf, recordOutcome, type Outcome } from './settle.js';

/**
 * A push in doubt: it met a fault after the request left (a timeout, a 5xx: the marketplace may
 * have taken it), or the sender stopped before recording its outcome. It is never pushed again
 * before the marketplace tells whether it landed:
 *  - from its batch, when the marketplace gave one for the push (recorded by its token): once
 *    settled, its outcome for the offer; while pending, the change waits;
 *  - else from the offer: the pushed price there, the push landed (`sent`, confirmed); not there,
 *    the same price may go again at once (it lands once, wherever the first push is), and once
 *    the doubt wait has passed since the push the marketplace did not take it: the token is
 *    cleared, the push given back to the day's cap, and the change planned again (`tellDoubt`).
 * A batch the marketplace took and left unapplied past the doubt wait, with no batch id known,
 * can still be pushed again: Takealot documents no idempotency key for batches.
 */
const iso = (ms: number) => new Date(ms).toISOString();
const CLEARED = { pushToken: null, pushStartedAt: null, pushPrice: null } as const;

type BatchLook = BatchStatus | 'unknown' | 'wait';

/** One run's looks at the batches of pushes in doubt: each token and each batch read once, however many changes share it. */
export class DoubtReads {
  private readonly batchIds = new Map<string, Promise<string | undefined>>();
  private readonly statuses = new Map<string, Promise<BatchLook>>();

  constructor(
    private readonly clientId: string,
    private readonly connector: string,
    readonly reads: SellerApiReads,
  ) {}

  batchOf(token: string): Promise<string | undefined> {
    let found = this.batchIds.get(token);
    if (!found) {
      found = readPushedBatch(this.clientId, this.connector, token);
      this.batchIds.set(token, found);
    }
    return found;
  }

  /** The batch's status; `unknown` when the marketplace no longer knows it; `wait` when it cannot be read now. */
  statusOf(batchId: string): Promise<BatchLook> {
    let look = this.statuses.get(batchId);
    if (!look) {
      look = this.reads
        .read((port, apiKey) => port.readBatch(apiKey, batchId), { retried: true })
        .then(
          (status) => (status === HELD ? 'wait' : status),
          (error: unknown) => (error instanceof MarketplaceNotFound ? 'unknown' : 'wait'),
        );
      this.statuses.set(batchId, look);
    }
    return look;
  }
}

/** The push landed (or was refused) as the marketplace says: recorded from `pending` with its token, as right after a push. */
const recordTold = async (clientId: string, change: StoredSendable, price: number, outcome: Outcome, batchId: string | undefined, deps: PushDeps) => {
  const now = iso(deps.now());
  const moved = await recordOutcome(clientId, { ref: change.ref, record: change.stored.record, pushDay: change.pushDay }, price, outcome, {
    from: ['pending'],
    token: change.pushToken!,
    fields: { sent_price: price, sent_at: change.pushStartedAt ?? now },
    sender: { ...CLEARED, attempts: null, retryAt: null, ...(batchId === undefined ? {} : { batchId }) },
    now,
  });
  if (moved) await countPricesSent(clientId, change.stored.record.connector, 1);
};

/** Told the push did not land: the token cleared, the push given back, and the change as it is now (to plan again). */
const notLanded = async (clientId: string, change: StoredSendable, deps: PushDeps): Promise<StoredSendable | undefined> => {
  const { record } = change.stored;
  const moved = await transitionPriceChange(clientId, change.ref, {
    from: ['pending'],
    token: change.pushToken!,
    sender: { ...CLEARED, retryAt: null },
    now: iso(deps.now()),
  });
  if (moved && change.pushDay !== undefined) await givePushBack(clientId, record.product_code, record.offer_id, change.pushDay);
  return moved ? readSendable(clientId, change.ref) : undefined;
};

/**
 * `told`: nothing to plan now (the outcome is recorded, or it waits); `absent`: the offer does
 * not show the pushed price (the caller decides whether the push went astray, `notLanded`).
 */
const resolveDoubt = async (clientId: string, change: StoredSendable, doubts: DoubtReads, deps: PushDeps): Promise<'told' | 'absent'> => {
  const token = change.pushToken;
  const price = change.pushPrice;
  if (token === undefined) return 'told';
  const { record } = change.stored;
  const batchId = await doubts.batchOf(token);
  if (batchId !== undefined) {
    const status = await doubts.statusOf(batchId);
    if (status === 'wait' || (status !== 'unknown' && status.state === 'pending')) return 'told';
    if (status !== 'unknown' && price !== undefined) {
      await recordTold(clientId, change, price, outcomesOf(status, [record.offer_id])!.get(record.offer_id)!, batchId, deps);
      return 'told';
    }
  }
  let offer;
  try {
    offer = await doubts.reads.read((port, apiKey) => port.readOwnOffer(apiKey, record.offer_id), { retried: true });
  } catch (error) {
    logger.warn('Push in doubt not told: the offer could not be read', { connector: record.connector, fault: (error as Error).name });
    return 'told';
  }
  if (offer === HELD) return 'told';
  if (price !== undefined && offer?.sellingPrice === price) {
    await recordTold(clientId, change, price, { ok: true }, undefined, deps);
    return 'told';
  }
  return 'absent';
};

const withoutDoubt = (change: StoredSendable): StoredSendable => ({
  ...change,
  pushToken: undefined,
  pushStartedAt: undefined,
  pushPrice: undefined,
  retryAt: undefined,
});

/**
 * A push in doubt, told before anything else goes for the offer; what to do with the change
 * then. When the offer does not show its price: the same price goes again at once (pushing an
 * absolute price twice lands it once, wherever the first push is); a different one only once the
 * doubt wait has passed since the push, time for a batch the marketplace took to show, so an
 * older price never lands after a newer one.
 */
export const tellDoubt = async (
  clientId: string,
  change: StoredSendable,
  gate: Gate,
  doubts: DoubtReads | undefined,
  products: ProductReads,
  deps: PushDeps,
): Promise<Plan> => {
  const wait: Plan = { kind: 'wait', change };
  if (!doubts || (await resolveDoubt(clientId, change, doubts, deps)) === 'told') return wait;
  const nowMs = deps.now();
  if (nowMs - Date.parse(change.pushStartedAt ?? '') < PRICE_SENDING.pushInDoubtMs) {
    const again = await planChange(clientId, withoutDoubt(change), gate, nowMs, products);
    if (again.kind !== 'push' || again.price !== change.pushPrice) return wait;
  }
  const cleared = await notLanded(clientId, change, deps);
  return cleared ? planChange(clientId, cleared, gate, deps.now(), products) : wait;
};
