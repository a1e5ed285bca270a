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

/**
 * To the storefront reader: one look at one page, for every tenant that watches it (group: the
 * page, so one page's looks are applied in order). Names the page, never a tenant: the reader
 * finds the watchers as they are when it reads.
 */
export const storefrontReadMessage = z.object({
  connector: z.string().min(1).max(64),
  productLineId: z.string().min(1).max(48),
  /** Why now: bits of the planner's reasons (lambdas/domain/read-planner/reasons.ts), for the logs and figures. */
  reasons: z.int().nonnegative(),
  /** When the planner admitted the look: a look that waited past its use is dropped (the planner plans it again). */
  at: z.iso.datetime({ precision: 3 }),
});
export type StoreFrontReadMessage = z.infer<typeof storefrontReadMessage>;

export const marketSyncGroup = (connectionUid: string): string => connectionUid;
/** A page's name is marketplace text: hashed, so the group id keeps SQS's 128-character, printable-ASCII rule. */
export const storefrontGroup = (connector: string, productLineId: string): string =>
  `page#${createHash('sha256').update(`${connector}#${productLineId}`).digest('base64url').slice(0, 32)}`;
