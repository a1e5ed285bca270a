import type { MoveEstimate } from './move-rate.js';

/** A tenant that sells the variant, and whether any of its enabled repricers prices it. */
export interface Watcher {
  readonly tenant: string;
  readonly repriced: boolean;
}

/**
 * What the planner knows of one product variant (one storefront page), shared by every tenant
 * selling it: when it was last looked at, when the next look is due and why, how often its
 * market moved lately, whether its buy box is contested, and who watches it.
 */
export interface VariantWatch {
  readonly variant: string;
  readonly watchers: readonly Watcher[];
  readonly lastLookAt: number | null;
  /** The look the rule schedules from what is known (ms since the epoch). */
  readonly scheduledAt: number;
  /** The reasons of the scheduled look (bits of LOOK_REASONS). */
  readonly scheduledReasons: number;
  /** An earlier look an event or a requested sync asked for, with who asked; null when none. */
  readonly forwardAt: number | null;
  readonly forwardReasons: number;
  readonly forwardBy: readonly string[];
  readonly moves: MoveEstimate;
  readonly contested: boolean;
}
