import { createHash } from 'node:crypto';
import * as z from 'zod';

/**
 * Messages to the price sender (lambdas/functions/send-prices/), one FIFO group per connection: one
 * connection's pushes never overlap and reach the marketplace in the order decided, while
 * other connections go on in parallel. Every message names what to look at, never what to
 * do: the sender reads the price changes and the connection as they are when it runs.
 */
const ref = z.object({ productCode: z.string().min(1).max(400), sk: z.string().min(1).max(1_000) });
const clientId = z.string().min(1);
const connector = z.string().min(1).max(32);

export const priceSenderMessage = z.discriminatedUnion('kind', [
  /** Price changes that just became `pending` (a live decision, a client's apply, the next step of a capped move). */
  z.object({ kind: z.literal('changes'), clientId, connector, changes: z.array(ref).min(1).max(500) }),
  /**
   * Look at the connection's pending and sent changes: on the schedule's tick (retries that are
   * due, confirmations still missing), and at once when the connection's mode or status moved
   * (a kill switch, a resume, a new key) or it was deleted.
   */
  z.object({ kind: z.literal('sweep'), clientId, connector, reason: z.enum(['tick', 'connection']) }),
  /** The marketplace says a batch completed (its Batch Completed event): read its outcome now. */
  z.object({ kind: z.literal('batch'), clientId, connector, batchId: z.string().min(1).max(100) }),
]);
export type PriceSenderMessage = z.infer<typeof priceSenderMessage>;

/** The connection's group: tenant text hashed, so the id keeps SQS's 128-character, printable-ASCII rule. */
export const priceSenderGroup = (clientIdValue: string, connectorUid: string): string =>
  `PS#${createHash('sha256').update(`${clientIdValue}\u0000${connectorUid}`).digest('base64url').slice(0, 43)}`;

/** The schedule's look at a connection's pending and sent changes, once per tick (deduplicated per tick). */
export const sweepMessage = (clientIdValue: string, connectorUid: string, tickAt: string) => {
  const groupId = priceSenderGroup(clientIdValue, connectorUid);
  const body: PriceSenderMessage = { kind: 'sweep', clientId: clientIdValue, connector: connectorUid, reason: 'tick' };
  return { groupId, deduplicationId: `${groupId}#sweep#${createHash('sha256').update(tickAt).digest('base64url').slice(0, 24)}`, body: JSON.stringify(body) };
};
