import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { PRICE_SENDING } from '../../config/price-sending.js';
import { mapLimit } from '../../data/table/concurrency.js';
import type { PriceChangeRef } from '../../data/price-changes/status.js';
import { statusPage } from '../../data/price-changes/sending.js';
import { priceSenderMessage, type PriceSenderMessage } from '../../events/price-sender.js';
import { logger } from '../../observability/logger.js';
import { fifoBatchResponse } from '../../queue/fifo-batch.js';
import { parseMessageBody } from '../../queue/message-body.js';
import { confirmBatch, confirmSent } from './confirm.js';
import { readGate } from './gate.js';
import { sendChanges } from './pipeline.js';
import type { PushDeps } from './push.js';
import { now } from '../../config/clock.js';

/**
 * The price sender. One invocation gets up to ten messages, of one or more connections (their
 * FIFO groups); each connection's are handled together: every price change its messages name
 * goes out in one run (one batch, one look at its status), so a burst of decisions is one push,
 * not a queue of them; then its sweeps and batch events. A marketplace fault never fails a
 * message (the group would hold the connection's later prices back): it is kept on the price
 * changes, and the sweep tries again when it is due. Only a fault of the table fails the
 * connection's messages, to be redelivered; what they had done is found done (conditional moves).
 * A `changes` message runs the pipeline (pipeline.ts) over the changes it names; a `sweep` runs
 * it over the connection's pending changes and confirms its sent ones (confirm.ts); a `batch`
 * confirms the batch it names.
 */
const PARALLEL_CONNECTIONS = 4;

export const defaultPushDeps: PushDeps = { now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * The connection's sweep: its pending changes (faults whose retry is due, changes held while
 * the connection was paused, unauthorized or rate-limited, and those a kill switch turns back
 * to `suggested` or a delete to `failed`) go through the sender again; its sent changes not yet
 * confirmed are confirmed from the offer as synced (an Offer Updated event or a sync that shows
 * the price) or from their batch's status, and `failed` when the marketplace never confirms.
 *
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

interface ConnectionWork {
  readonly clientId: string;
  readonly connector: string;
  readonly records: SQSRecord[];
  readonly messages: PriceSenderMessage[];
}

const handleConnection = async (work: ConnectionWork, deps: PushDeps): Promise<void> => {
  const refs = new Map<string, { productCode: string; sk: string }>();
  for (const message of work.messages) if (message.kind === 'changes') for (const ref of message.changes) refs.set(`${ref.productCode}\u0000${ref.sk}`, ref);
  if (refs.size > 0) await sendChanges(work.clientId, work.connector, [...refs.values()], deps);
  for (const message of work.messages) {
    if (message.kind === 'sweep') await sweepConnection(work.clientId, work.connector, deps);
    if (message.kind === 'batch') await confirmBatch(work.clientId, work.connector, message.batchId, deps);
  }
};

/** The connections' work in this batch, by connection, in the order their messages came. */
const byConnection = (records: readonly SQSRecord[]): ConnectionWork[] => {
  const works = new Map<string, ConnectionWork>();
  for (const record of records) {
    const parsed = parseMessageBody(priceSenderMessage, record.body);
    if (!parsed.success) {
      logger.error('Price sender message refused', { messageId: record.messageId });
      continue;
    }
    const { clientId, connector } = parsed.data;
    const key = `${clientId}\u0000${connector}`;
    const work = works.get(key) ?? { clientId, connector, records: [], messages: [] };
    work.records.push(record);
    work.messages.push(parsed.data);
    works.set(key, work);
  }
  return [...works.values()];
};

/**
 * Each connection's messages are handled together, several connections at once; a connection
 * whose work failed fails its messages, to be redelivered in order, and no other's; the batch
 * response is Powertools' FIFO one, as every consumer's (queue/fifo-batch.ts).
 */
export const priceSenderWorker =
  (deps: PushDeps = defaultPushDeps) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failed = new Set<string>();
    await mapLimit(
      byConnection(event.Records),
      async (work) => {
        try {
          await handleConnection(work, deps);
        } catch (error) {
          logger.error('Price sender messages failed; they are tried again', {
            connector: work.connector,
            messages: work.records.length,
            error: error as Error,
          });
          for (const record of work.records) failed.add(record.messageId);
        }
      },
      PARALLEL_CONNECTIONS,
    );
    return fifoBatchResponse(event, failed);
  };
