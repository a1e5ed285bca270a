import { batchWrite } from '../../lambdas/shared/data/batch.js';
import { scanTenantKeys } from '../../lambdas/shared/data/tenant-items.js';

/**
 * `clients delete <u> --purge`: deletes every item of one tenant, i.e. every item whose
 * partition key starts with `T#<clientId>#` (docs/data-model.md). The tenant's partitions
 * include listing cells and rank nodes named from its data, so they are found by a Scan of the
 * table, the one Scan of the project, run only by this operator command.
 *
 * Deleting canonical items (offers, products, repricer slots, price changes) puts changes on
 * the table's stream, and the list maintainer answers them by unlisting and recounting, which
 * writes the tenant's listing and node items again. So a purge runs in passes: delete what a
 * Scan finds, let the change stream settle, Scan again; it ends with a pass that finds nothing.
 */
export interface PurgeProgress {
  readonly pass: number;
  /** Items the Scans of this pass read, the tenant's and others'. */
  readonly scanned: number;
  /** The tenant's items deleted so far, over every pass. */
  readonly deleted: number;
}

export interface PurgeOptions {
  readonly onProgress?: (progress: PurgeProgress) => void;
  /** Waits for the stream consumers to answer the last pass's deletes. */
  readonly settle?: () => Promise<void>;
  readonly settleMs?: number;
  readonly maxPasses?: number;
  readonly segments?: number;
}

export interface PurgeResult {
  readonly deleted: number;
  readonly passes: number;
}

/** On AWS a stream record reaches the maintainer within seconds; this leaves it ample time. */
export const DEFAULT_SETTLE_MS = 30_000;
/** The local event runtime polls the stream every 50 ms (tools/local/event-runtime.ts). */
export const LOCAL_SETTLE_MS = 5_000;
const DEFAULT_MAX_PASSES = 10;
const DEFAULT_SEGMENTS = 4;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One pass: every segment scanned in parallel, each page's keys deleted as it arrives. */
const purgePass = async (clientId: string, segments: number, report: (scanned: number, deleted: number) => void): Promise<number> => {
  let deleted = 0;
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      for await (const page of scanTenantKeys(clientId, segment, segments)) {
        await batchWrite(page.keys.map((key) => ({ delete: { pk: key.pk, sk: key.sk } })));
        deleted += page.keys.length;
        report(page.scanned, page.keys.length);
      }
    }),
  );
  return deleted;
};

export const purgeTenant = async (clientId: string, options: PurgeOptions = {}): Promise<PurgeResult> => {
  const { onProgress = () => {}, settleMs = DEFAULT_SETTLE_MS, maxPasses = DEFAULT_MAX_PASSES, segments = DEFAULT_SEGMENTS } = options;
  const settle = options.settle ?? (() => sleep(settleMs));
  let total = 0;
  for (let pass = 1; pass <= maxPasses; pass++) {
    let scanned = 0;
    const deleted = await purgePass(clientId, segments, (pageScanned, pageDeleted) => {
      scanned += pageScanned;
      total += pageDeleted;
      onProgress({ pass, scanned, deleted: total });
    });
    onProgress({ pass, scanned, deleted: total });
    if (deleted === 0) return { deleted: total, passes: pass };
    await settle();
  }
  throw new Error(`The tenant still had items after ${maxPasses} passes: is something still writing for it? Run the purge again.`);
};
