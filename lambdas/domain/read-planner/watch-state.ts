import type { ReadPlannerSettings } from '../../config/read-planner.js';
import { FORWARD_REASONS, LOOK_REASONS, mergeReasons } from './reasons.js';
import { initialMoves, moveObserved } from './move-rate.js';
import { afterMoveSeen, scheduledLook } from './next-look.js';
import type { VariantWatch, Watcher } from './variant-watch.js';

export type { VariantWatch, Watcher } from './variant-watch.js';

/** The next look: the earlier of the scheduled one and one brought forward. */
export const nextLookAt = (watch: VariantWatch): number => (watch.forwardAt === null ? watch.scheduledAt : Math.min(watch.forwardAt, watch.scheduledAt));

/** Every reason of the next look, merged. */
export const nextLookReasons = (watch: VariantWatch): number =>
  watch.forwardAt !== null && watch.forwardAt <= watch.scheduledAt ? mergeReasons(watch.forwardReasons, watch.scheduledReasons) : watch.scheduledReasons;

/**
 * The tenants the next look is for, who share its cost: every watcher once the schedule's own
 * look is due; before that, only those who brought it forward.
 */
export const lookRequesters = (watch: VariantWatch, at: number): readonly string[] =>
  at >= watch.scheduledAt || watch.forwardAt === null ? watch.watchers.map((w) => w.tenant) : watch.forwardBy;

export const isRepriced = (watch: Pick<VariantWatch, 'watchers'>): boolean => watch.watchers.some((w) => w.repriced);

const rescheduled = (watch: VariantWatch, settings: ReadPlannerSettings): VariantWatch => {
  const { at, reasons } = scheduledLook(watch, settings);
  return { ...watch, scheduledAt: at, scheduledReasons: reasons };
};

/** A variant first watched: looked at as soon as the budget allows. */
export const newWatch = (variant: string, watchers: readonly Watcher[], now: number): VariantWatch => ({
  variant,
  watchers,
  lastLookAt: null,
  scheduledAt: now,
  scheduledReasons: LOOK_REASONS.new,
  forwardAt: null,
  forwardReasons: 0,
  forwardBy: [],
  moves: initialMoves,
  contested: false,
});

/** A tenant starts watching (or changes whether it reprices): the next look may come sooner, never later than planned. */
export const withWatcher = (watch: VariantWatch, watcher: Watcher, settings: ReadPlannerSettings): VariantWatch => {
  const watchers = [...watch.watchers.filter((w) => w.tenant !== watcher.tenant), watcher];
  if (watch.lastLookAt === null) return { ...watch, watchers };
  const next = rescheduled({ ...watch, watchers }, settings);
  return next.scheduledAt < watch.scheduledAt ? next : { ...next, scheduledAt: watch.scheduledAt };
};

/** A tenant stops watching (the offer is gone, the connection deleted); a look it alone asked for loses its use. */
export const withoutWatcher = (watch: VariantWatch, tenant: string, settings: ReadPlannerSettings): VariantWatch => {
  const watchers = watch.watchers.filter((w) => w.tenant !== tenant);
  const forwardBy = watch.forwardBy.filter((t) => t !== tenant);
  const forward = forwardBy.length === 0 ? { forwardAt: null, forwardReasons: 0, forwardBy } : { forwardBy };
  const next = { ...watch, watchers, ...forward };
  return watch.lastLookAt === null ? next : rescheduled(next, settings);
};

/**
 * An event or a requested sync brings the next look forward to `at`, never closer than the
 * floor to the last look; its reason and tenant merge into the look already planned.
 */
export const broughtForward = (
  watch: VariantWatch,
  request: { readonly reason: 'event' | 'sync'; readonly tenant: string; readonly at: number },
  settings: ReadPlannerSettings,
): VariantWatch => {
  const earliest = watch.lastLookAt === null ? request.at : Math.max(request.at, watch.lastLookAt + settings.floorSeconds * 1000);
  const forwardAt = watch.forwardAt === null ? earliest : Math.min(watch.forwardAt, earliest);
  const forwardBy = watch.forwardBy.includes(request.tenant) ? watch.forwardBy : [...watch.forwardBy, request.tenant];
  return { ...watch, forwardAt, forwardBy, forwardReasons: mergeReasons(watch.forwardReasons, LOOK_REASONS[request.reason]) };
};

/** What one look saw: whether the market moved since the look before, and whether the buy box is contested. */
export interface LookOutcome {
  readonly at: number;
  readonly moved: boolean;
  readonly contested: boolean;
}

/** After a look: the estimate learns from it, every reason it served is settled, and the rule plans the next. */
export const afterLook = (watch: VariantWatch, outcome: LookOutcome, settings: ReadPlannerSettings): VariantWatch => {
  const moves = watch.lastLookAt === null ? watch.moves : moveObserved(watch.moves, outcome.at - watch.lastLookAt, outcome.moved, settings);
  // The look served every request made before it, whenever each asked to be served.
  const next = rescheduled(
    { ...watch, forwardAt: null, forwardReasons: 0, forwardBy: [], lastLookAt: outcome.at, moves, contested: outcome.contested },
    settings,
  );
  if (watch.lastLookAt === null) return next;
  const gapMs = outcome.at - watch.lastLookAt;
  return { ...next, scheduledAt: afterMoveSeen(next.scheduledAt, { at: outcome.at, gapMs, moved: outcome.moved }, settings.floorSeconds * 1000) };
};

/** Whether a reason of the next look brings it forward (for the log and the figures). */
export const isForward = (reasons: number): boolean => (reasons & FORWARD_REASONS) !== 0;
