import type { ReadPlannerSettings } from '../../config/read-planner.js';
import { mergeReasons } from './reasons.js';
import type { VariantWatch } from './variant-watch.js';

/** A look admitted to the readers' queue: one page, every reason and tenant it serves. */
export interface DueRead {
  readonly variant: string;
  readonly reasons: number;
  readonly requesters: readonly string[];
  readonly queuedAt: number;
}

/** Two looks at one page merge into one read: the reasons and tenants of both, queued since the earlier. */
export const mergeReads = (a: DueRead, b: DueRead): DueRead => {
  if (a.variant !== b.variant) throw new RangeError(`cannot merge reads of ${a.variant} and ${b.variant}`);
  return {
    variant: a.variant,
    reasons: mergeReasons(a.reasons, b.reasons),
    requesters: [...new Set([...a.requesters, ...b.requesters])],
    queuedAt: Math.min(a.queuedAt, b.queuedAt),
  };
};

export type ReadUse = 'read' | 'unwatched' | 'seen';

/**
 * Whether a queued read still has a use when its turn comes: nobody watches the page any more
 * (`unwatched`), or the page was looked at after the read was queued (`seen`): either is dropped
 * without a request.
 */
export const readUse = (read: DueRead, watch: Pick<VariantWatch, 'watchers' | 'lastLookAt'> | undefined): ReadUse => {
  if (watch === undefined || watch.watchers.length === 0) return 'unwatched';
  if (watch.lastLookAt !== null && watch.lastLookAt >= read.queuedAt) return 'seen';
  return 'read';
};

/** How many more reads the queue may take now: filled to `queueSeconds` of budget, never beyond `maxQueueSeconds`. */
export const queueRoom = (queued: number, settings: Pick<ReadPlannerSettings, 'readsPerSecond' | 'queueSeconds' | 'maxQueueSeconds'>): number => {
  const target = Math.floor(settings.readsPerSecond * Math.min(settings.queueSeconds, settings.maxQueueSeconds));
  return Math.max(0, Math.max(1, target) - queued);
};
