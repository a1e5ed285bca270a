import { createHash } from 'node:crypto';
import * as z from 'zod';

/**
 * Messages of the market loop (lambdas/config/market-sync.ts). Every one names its
 * connection by uid: the worker reads the connection as it is when the message is handled, so
 * a deleted or unauthorized connection's queued work does nothing.
 */
const uid = z.uuid();

/** To the sync worker (group: the connection, so one connection's syncs never overlap). */
export const marketSyncMessage = z.discriminatedUnion('kind', [
  /** The schedule's tick: run what is due at `at` (an ISO time on the tick's minute). */
  z.object({ kind: z.literal('tick'), uid, at: z.iso.datetime({ precision: 3 }) }),
  /**
   * A verified marketplace event about one own offer: read that offer now (and its product's
   * page). Only brings the next look forward: what the event says is not written.
   */
  z.object({ kind: z.literal('offer'), uid, offerId: z.string().min(1).max(128), deliveryId: z.string().min(1).max(200) }),
]);
export type MarketSyncMessage = z.infer<typeof marketSyncMessage>;

/** To the storefront reader (group: the connection and product, so one product's pages are applied in order). */
export const storefrontReadMessage = z.object({
  uid,
  code: z.string().min(1),
  productLineId: z.string().min(1).max(48),
  /** Why now: the tier's schedule, a requested full sync, or a marketplace event. */
  reason: z.enum(['tier', 'full', 'event']),
  /** When the read was asked for (freshness is measured from the page read, this is for the logs). */
  at: z.iso.datetime({ precision: 3 }),
});
export type StoreFrontReadMessage = z.infer<typeof storefrontReadMessage>;

export const marketSyncGroup = (connectionUid: string): string => connectionUid;
/** A product code is tenant text up to 128 characters: hashed, so the group id keeps SQS's 128-character, printable-ASCII rule. */
export const storefrontGroup = (connectionUid: string, code: string): string =>
  `${connectionUid}#${createHash('sha256').update(code).digest('base64url').slice(0, 32)}`;
