import { batchWrite } from '../../lambdas/data/table/batch.js';
import { findTenantItems, type ItemKey } from '../../lambdas/data/tenants/items.js';

/**
 * `clients delete <u> --purge`: deletes every item of one tenant. The caller disables the
 * client first (client-commands.ts), so the authorizer refuses it and nothing new is written
 * for it through the API.
 *
 * No Scan: each pass finds the tenant's items by Query from its own data
 * (lambdas/data/tenants/items.ts: its products, the cells its rank nodes count, its fixed
 * partitions), then deletes the canonical items first, the listings and nodes derived from
 * them next, the offer lookups last. Deleting canonical items puts changes on the table's
 * stream; the list maintainer answering them reads what each item became (nothing) and finds
 * its listings gone, so it writes nothing new, except in the moment it races a pass. So passes
 * repeat until one finds nothing, waiting between them for the stream's work to settle: by
 * observing it where the caller can (`settle`, the local event runtime's), else by a pause
 * that doubles from 100 ms up to `settleMs`, and then an empty pass ends the purge only after a
 * whole `settleMs` of quiet. Passes and total time are both bounded.
 */
export interface PurgeProgress {
  readonly pass: number;
  /** Items the Queries of this pass read (the tenant's, found by key: no Scan). */
  readonly scanned: number;
  /** The tenant's items deleted so far, over every pass. */
  readonly deleted: number;
}

export interface PurgeOptions {
  readonly onProgress?: (progress: PurgeProgress) => void;
  /** Resolves once the stream consumers have answered every change so far (observed, not guessed). */
  readonly settle?: () => Promise<void>;
  /** Without `settle`: the longest pause between two passes. */
  readonly settleMs?: number;
  readonly maxPasses?: number;
  /** The longest the whole purge may take before it gives up (it can be run again). */
  readonly timeoutMs?: number;
  /**
   * The purge only ends with an empty pass that starts at or after this time (epoch ms): on a
   * stage, API Gateway may still let a just-disabled client through on a cached authorization
   * until its cache entry expires.
   */
  readonly quietFrom?: number;
}

export interface PurgeResult {
  readonly deleted: number;
  readonly passes: number;
}

/** On AWS a stream record reaches the maintainer within seconds: passes up to this far apart. */
export const DEFAULT_SETTLE_MS = 10_000;
/** The local event runtime polls the stream every 50 ms (tools/local/event-runtime.ts). */
export const LOCAL_SETTLE_MS = 2_000;
const FIRST_PAUSE_MS = 100;
const DEFAULT_MAX_PASSES = 10;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A timer may fire a millisecond before the wall clock shows its end: sleep again until it does. */
const sleepUntil = async (until: number): Promise<void> => {
  while (Date.now() < until) await sleep(until - Date.now());
};

const deleteKeys = (keys: readonly ItemKey[]) => batchWrite(keys.map((key) => ({ delete: { pk: key.pk, sk: key.sk } })));

/** One pass: what it found and deleted, canonical items before what is derived from them. */
const purgePass = async (clientId: string, codes: Set<string>): Promise<{ read: number; deleted: number }> => {
  const found = await findTenantItems(clientId, codes);
  for (const code of found.codes) codes.add(code);
  for (const group of [found.canonical, found.listings, found.nodes, found.lookups]) await deleteKeys(group);
  return { read: found.read, deleted: found.canonical.length + found.listings.length + found.nodes.length + found.lookups.length };
};

export const purgeTenant = async (clientId: string, options: PurgeOptions = {}): Promise<PurgeResult> => {
  const { onProgress = () => {}, settleMs = DEFAULT_SETTLE_MS, maxPasses = DEFAULT_MAX_PASSES, timeoutMs = DEFAULT_TIMEOUT_MS, quietFrom = 0 } = options;
  const deadline = Date.now() + timeoutMs;
  let total = 0;
  // Every product code a pass has seen, so later passes find what the stream wrote there after it.
  const codes = new Set<string>();
  // The pause before the current pass, when there was no settle to observe.
  let pausedMs = 0;
  for (let pass = 1; pass <= maxPasses; pass++) {
    const passStarted = Date.now();
    const { read, deleted } = await purgePass(clientId, codes);
    total += deleted;
    onProgress({ pass, scanned: read, deleted: total });
    const empty = deleted === 0 && passStarted >= quietFrom;
    // Without a settle to observe, an empty pass proves the stream quiet only after a whole
    // `settleMs`: a shorter pause can end before the maintainer answers the last deletes (on a
    // loaded machine it answered two seconds late), so one more pass confirms it first.
    if (empty && (pass === 1 || options.settle !== undefined || pausedMs >= settleMs)) return { deleted: total, passes: pass };
    if (Date.now() >= deadline) break;
    if (options.settle) await options.settle();
    else {
      pausedMs = empty ? settleMs : Math.min(FIRST_PAUSE_MS * 2 ** (pass - 1), settleMs);
      await sleep(Math.min(pausedMs, Math.max(0, deadline - Date.now())));
    }
    // An empty pass that came too early: the next one waits for the authorizer cache to expire.
    if (deleted === 0) await sleepUntil(Math.min(quietFrom, deadline));
  }
  throw new Error(
    `The tenant still had items after ${maxPasses} passes or ${Math.round(timeoutMs / 1000)} s: is something still writing for it? Run the purge again.`,
  );
};
