import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { mapLimit } from '../shared/data/concurrency.js';
import { priceSenderMessage, type PriceSenderMessage } from '../shared/events/price-sender.js';
import { logger } from '../shared/logger.js';
import type { PushDeps } from './push-deps.js';
import { sendChanges } from './send.js';
import { confirmBatch, sweepConnection } from './sweep.js';
import { parseMessageBody } from '../shared/queue/message-body.js';

/**
 * The price sender. One invocation gets up to ten messages, of one or more connections (their
 * FIFO groups); each connection's are handled together: every price change its messages name
 * goes out in one run (one batch, one look at its status), so a burst of decisions is one push,
 * not a queue of them; then its sweeps and batch events. A marketplace fault never fails a
 * message (the group would hold the connection's later prices back): it is kept on the price
 * changes, and the sweep tries again when it is due. Only a fault of the table fails the
 * connection's messages, to be redelivered; what they had done is found done (conditional moves).
 */
const PARALLEL_CONNECTIONS = 4;

export const defaultPushDeps: PushDeps = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

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

export const priceSenderWorker =
  (deps: PushDeps = defaultPushDeps) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const byConnection = new Map<string, ConnectionWork>();
    for (const record of event.Records) {
      const parsed = parseMessageBody(priceSenderMessage, record.body);
      if (!parsed.success) {
        logger.error('Price sender message refused', { messageId: record.messageId });
        continue;
      }
      const { clientId, connector } = parsed.data;
      const key = `${clientId}\u0000${connector}`;
      const work = byConnection.get(key) ?? { clientId, connector, records: [], messages: [] };
      work.records.push(record);
      work.messages.push(parsed.data);
      byConnection.set(key, work);
    }
    const failures: SQSBatchItemFailure[] = [];
    await mapLimit(
      [...byConnection.values()],
      async (work) => {
        try {
          await handleConnection(work, deps);
        } catch (error) {
          // Redelivered by the queue, in order: every message of the connection in this batch.
          logger.error('Price sender messages failed; they are tried again', {
            connector: work.connector,
            messages: work.records.length,
            error: error as Error,
          });
          failures.push(...work.records.map((record) => ({ itemIdentifier: record.messageId })));
        }
      },
      PARALLEL_CONNECTIONS,
    );
    return { batchItemFailures: failures };
  };
