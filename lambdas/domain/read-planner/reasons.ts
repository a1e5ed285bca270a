/**
 * Why a page is looked at. A look has one or more reasons, kept as bits so that reasons merge
 * by OR: one page, one read, however many reasons asked for it.
 */
export const LOOK_REASONS = {
  /** Never looked at yet. */
  new: 1,
  /** Someone reprices the product. */
  repriced: 2,
  /** Someone's own offer is near the winning price. */
  contested: 4,
  /** Its market moved lately (more than once an hour, by the moving estimate). */
  moving: 8,
  /** Only watched: sold, not repriced. */
  watched: 16,
  /** A marketplace event named it. */
  event: 32,
  /** A requested sync of a connection selling it. */
  sync: 64,
} as const;

export type LookReason = keyof typeof LOOK_REASONS;

/** Reasons that bring a look forward, against the schedule's own. */
export const FORWARD_REASONS = LOOK_REASONS.event | LOOK_REASONS.sync;

export const mergeReasons = (a: number, b: number): number => a | b;

export const reasonNames = (bits: number): LookReason[] => (Object.keys(LOOK_REASONS) as LookReason[]).filter((name) => (bits & LOOK_REASONS[name]) !== 0);
