import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { readSendable, transitionPriceChange, type PriceChangeRef, type StoredSendable } from '../../data/price-changes/status.js';
import { readSentBatch } from '../../data/price-changes/sending.js';
import { forgetDecision } from '../../data/repricing/decision-states.js';
import { readProductForRepricing } from '../../data/repricing/inputs.js';
import type { PriceChange } from '../../domain/records.js';
import { MarketplaceNotFound, type BatchStatus } from '../../marketplace/port.js';
import { readGate, type Gate } from './gate.js';
import type { PushDeps } from './push.js';
import { HELD, SellerApiReads, type ReadDeps } from './seller-api.js';
import { outcomesOf, recordOutcome, type Outcome, type PushedChange } from './settle.js';

/**
 * The settle step, later: a `sent` change is confirmed by whichever comes first, its batch's
 * status (a Batch Completed event, or the sweep's look), or the offer as synced showing the sent
 * price (an Offer Updated event, a sync); one the marketplace never confirms within 24 hours is
 * `failed`, and a connection deleted meanwhile makes it `failed` too.
 */
const PARALLEL_READS = 8;
const iso = (ms: number) => new Date(ms).toISOString();

const settleSent = (clientId: string, change: PushedChange, outcome: Outcome, now: string): Promise<PriceChange | undefined> =>
  recordOutcome(clientId, change, change.record.sent_price ?? change.record.new_price, outcome, { from: ['sent'], now });

/** Applies a settled batch's outcome to the changes it carried that are still `sent`. */
const settleBatch = async (clientId: string, changes: readonly StoredSendable[], status: BatchStatus, now: string): Promise<number> => {
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

const readAll = async (clientId: string, refs: readonly PriceChangeRef[]): Promise<StoredSendable[]> =>
  (await mapLimit([...refs], (ref) => readSendable(clientId, ref), PARALLEL_READS)).filter((change): change is StoredSendable => change !== undefined);

/** Whether the offer, as the syncs last saw it, has the price that was sent. */
const showsSentPrice = async (clientId: string, change: StoredSendable): Promise<boolean> => {
  const { record } = change.stored;
  const product = await readProductForRepricing(clientId, record.product_code);
  const offer = product?.offers.find((o) => o.scope === 'own' && o.fields.offer_id === record.offer_id);
  return offer !== undefined && offer.fields.offer_price === record.sent_price;
};

/**
 * Confirms sent changes from their batch's status (read once per batch), behind the seller-API
 * hold: none is read while it is in force, and a 429 sets it and ends the looks.
 */
const confirmFromBatches = async (clientId: string, gate: Gate, changes: readonly StoredSendable[], deps: ReadDeps): Promise<void> => {
  if (gate.kind !== 'open') return;
  const reads = new SellerApiReads(clientId, gate.stored.record.connector, gate.port, gate.apiKey, deps);
  const byBatch = new Map<string, StoredSendable[]>();
  for (const change of changes) {
    if (change.batchId === undefined) continue;
    byBatch.set(change.batchId, [...(byBatch.get(change.batchId) ?? []), change]);
  }
  for (const [batchId, batch] of byBatch) {
    try {
      const status = await reads.read((port, apiKey) => port.readBatch(apiKey, batchId));
      if (status === HELD) return;
      await settleBatch(clientId, batch, status, iso(deps.now()));
    } catch (error) {
      // A batch the marketplace no longer knows cannot confirm anything: the offer's price still can.
      if (!(error instanceof MarketplaceNotFound)) return;
    }
  }
};

/** The sweep's look at a connection's sent changes not yet confirmed. */
export const confirmSent = async (clientId: string, gate: Gate, refs: readonly PriceChangeRef[], deps: ReadDeps): Promise<void> => {
  const nowMs = deps.now();
  const sent = (await readAll(clientId, refs)).filter(
    (change) => change.stored.record.status === 'sent' && nowMs - Date.parse(change.stored.record.sent_at ?? '') >= PRICE_SENDING.unconfirmedAfterMs,
  );
  const unconfirmed: StoredSendable[] = [];
  for (const change of sent) {
    if (await showsSentPrice(clientId, change)) await settleSent(clientId, { ref: change.ref, record: change.stored.record }, { ok: true }, iso(nowMs));
    else unconfirmed.push(change);
  }
  await confirmFromBatches(clientId, gate, unconfirmed, deps);
  for (const change of unconfirmed) {
    const age = nowMs - Date.parse(change.stored.record.sent_at ?? '');
    if (gate.kind !== 'gone' && age < PRICE_SENDING.confirmWindowMs) continue;
    const reason =
      gate.kind === 'gone'
        ? 'The connection was deleted before the marketplace confirmed this price.'
        : 'The marketplace did not confirm this price within 24 hours.';
    const failed = await transitionPriceChange(clientId, change.ref, { from: ['sent'], to: 'failed', fields: { status_reason: reason }, now: iso(nowMs) });
    // Never confirmed, for a reason of the connection or the marketplace: the evaluator decides the
    // target again (a price that did land shows on the offer, and then nothing is decided).
    if (failed) await forgetDecision(clientId, failed, change.ref.sk);
  }
};

/** A Batch Completed event: the batch's outcome for the changes it carried, read now. */
export const confirmBatch = async (clientId: string, connector: string, batchId: string, deps: PushDeps): Promise<void> => {
  const refs = await readSentBatch(clientId, connector, batchId);
  if (!refs) return;
  const changes = (await readAll(clientId, refs)).filter((change) => change.stored.record.status === 'sent');
  if (changes.length === 0) return;
  await confirmFromBatches(clientId, await readGate(clientId, connector, deps.now()), changes, deps);
};
