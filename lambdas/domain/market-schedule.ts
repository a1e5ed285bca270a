import { createHash } from 'node:crypto';
import { MARKET_SYNC } from '../config/market-sync.js';
import type { Connection } from './connections.js';

/**
 * When a connection's own offers are synced (docs/market-loop.md; its storefront pages are the
 * read planner's, lambdas/domain/read-planner/). Time is cut into ticks of the schedule's period;
 * a thing watched every N ticks is due on the ticks whose number, modulo N, equals its phase: a
 * digest of its name. So each connection's full sync comes round at a steady interval, the load
 * is spread evenly over the ticks, and nothing has to be written to remember when it last ran.
 */
export const tickOf = (atMs: number, tickSeconds: number = MARKET_SYNC.tickSeconds): number => Math.floor(atMs / (tickSeconds * 1000));

/** The phase of a name within a period of `ticks` ticks: uniform over the names, stable forever. */
export const phaseOf = (name: string, ticks: number): number => createHash('sha256').update(name).digest().readUInt32BE(0) % ticks;

/** Whether a thing watched every `everySeconds` is due on this tick. */
export const isDue = (name: string, tick: number, everySeconds: number, tickSeconds: number = MARKET_SYNC.tickSeconds): boolean => {
  const ticks = Math.max(1, Math.round(everySeconds / tickSeconds));
  return tick % ticks === phaseOf(name, ticks);
};

/** A full sync the connection still waits for: never synced, or asked for (POST .../sync) after its last full sync. */
export const fullSyncWanted = (record: Pick<Connection, 'last_sync_at' | 'sync_requested_at'>): boolean =>
  record.last_sync_at === null || (record.sync_requested_at !== null && record.sync_requested_at > record.last_sync_at);

/** The connection's own-offer sync is due on this tick: a full sync is wanted, or its phase has come round. */
export const ownOffersDue = (record: Pick<Connection, 'uid' | 'last_sync_at' | 'sync_requested_at'>, tick: number): boolean =>
  fullSyncWanted(record) || isDue(record.uid, tick, MARKET_SYNC.ownOffersEverySeconds);

/**
 * Whether a sync that changed nothing should still rewrite `last_sync_at`: when it is older than
 * the heartbeat, so the record shows syncs running without costing a write on every one.
 */
export const heartbeatDue = (lastSyncAt: string | null, nowMs: number): boolean =>
  lastSyncAt === null || nowMs - Date.parse(lastSyncAt) >= MARKET_SYNC.recordHeartbeatSeconds * 1000;
