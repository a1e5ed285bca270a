import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { readSendable, transitionPriceChange, type PriceChangeRef, type StoredSendable } from '../../data/price-changes/status.js';
import { readSentBatch, statusPage } from '../../data/price-changes/sending.js';
import { forgetDecision } from '../../data/repricing/decision-states.js';
import { readProductForRepricing } from '../../data/repricing/inputs.js';
import { MarketplaceNotFound } from '../../marketplace/port.js';
import { settleBatch, settleSent } from './confirm.js';
import { readGate, type Gate } from './gate.js';
import type { PushDeps } from './push-deps.js';
import { HELD, SellerApiReads, type ReadDeps } from './seller-api.js';
import { sendChanges } from './send.js';

/**
 * The connection's sweep: its pending changes (faults whose retry is due, changes held while
 * the connection was paused, unauthorized or rate-limited, and those a kill switch turns back
 * to `suggested` or a delete to `failed`) go through the sender again; its sent changes not yet
 * confirmed are confirmed from the offer as synced (an Offer Updated event or a sync that shows
 * the price) or from their batch's status, and `failed` when the marketplace never confirms.
 */
const PARALLEL_READS = 8;
const iso = (ms: number) => new Date(ms).toISOString();

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
export const confirmFromBatches = async (clientId: string, gate: Gate, changes: readonly StoredSendable[], deps: ReadDeps): Promise<void> => {
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

const confirmSent = async (clientId: string, gate: Gate, refs: readonly PriceChangeRef[], deps: ReadDeps): Promise<void> => {
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

/**
 * The pages of a connection's changes in one status this sweep takes: all of them when they are
 * few; else `sweepPagesPerRun` pages from one that moves on each minute (the minute's number), so
 * the work of a run is bounded and every change comes round within a few sweeps.
 */
export const sweepPagesOf = (total: number, nowMs: number): number[] => {
  const { sweepPageSize: size, sweepPagesPerRun: perRun } = PRICE_SENDING;
  const pages = Math.ceil(total / size);
  if (pages <= perRun) return Array.from({ length: pages }, (_unused, page) => page);
  const first = (Math.floor(nowMs / 60_000) * perRun) % pages;
  return Array.from({ length: perRun }, (_unused, n) => (first + n) % pages);
};

const eachPage = async (
  clientId: string,
  connector: string,
  status: 'pending' | 'sent',
  nowMs: number,
  work: (refs: PriceChangeRef[]) => Promise<void>,
): Promise<void> => {
  const size = PRICE_SENDING.sweepPageSize;
  const first = await statusPage(clientId, connector, status, 0, size);
  for (const page of sweepPagesOf(first.total, nowMs)) {
    const { refs } = page === 0 ? first : await statusPage(clientId, connector, status, page * size, size);
    if (refs.length > 0) await work(refs);
  }
};

export const sweepConnection = async (clientId: string, connector: string, deps: PushDeps): Promise<void> => {
  await eachPage(clientId, connector, 'pending', deps.now(), (refs) => sendChanges(clientId, connector, refs, deps));
  await eachPage(clientId, connector, 'sent', deps.now(), async (refs) => confirmSent(clientId, await readGate(clientId, connector, deps.now()), refs, deps));
};

/** A Batch Completed event: the batch's outcome for the changes it carried, read now. */
export const confirmBatch = async (clientId: string, connector: string, batchId: string, deps: PushDeps): Promise<void> => {
  const refs = await readSentBatch(clientId, connector, batchId);
  if (!refs) return;
  const changes = (await readAll(clientId, refs)).filter((change) => change.stored.record.status === 'sent');
  if (changes.length === 0) return;
  await confirmFromBatches(clientId, await readGate(clientId, connector, deps.now()), changes, deps);
};
