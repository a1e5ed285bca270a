import type { ReadPlannerSettings } from '../../config/read-planner.js';
import { expectedMoveMs } from './move-rate.js';
import { LOOK_REASONS } from './reasons.js';
import type { VariantWatch } from './variant-watch.js';

type Known = Pick<VariantWatch, 'watchers' | 'lastLookAt' | 'moves' | 'contested'>;

const HOUR_MS = 3_600_000;

/**
 * The rule for the time between two looks at a page: the expected time between its market's
 * moves divided by the looks it deserves per move (contested, then repriced, then only
 * watched), between the floor and the ceiling (a lower ceiling when someone reprices it). A page
 * nobody watches any more waits the ceiling: its look has lost its use.
 */
export const lookInterval = (watch: Known, settings: ReadPlannerSettings): { readonly intervalMs: number; readonly reasons: number } => {
  const floor = settings.floorSeconds * 1000;
  if (watch.watchers.length === 0) return { intervalMs: settings.ceilingSeconds * 1000, reasons: 0 };
  const repriced = watch.watchers.some((w) => w.repriced);
  const contested = repriced && watch.contested;
  const expected = expectedMoveMs(watch.moves, settings);
  const perMove = contested ? settings.contestedLooksPerMove : repriced ? settings.repricedLooksPerMove : settings.watchedLooksPerMove;
  const ceiling = (repriced ? settings.repricedCeilingSeconds : settings.ceilingSeconds) * 1000;
  const intervalMs = Math.min(ceiling, Math.max(floor, expected / perMove));
  const reasons =
    (repriced ? LOOK_REASONS.repriced : LOOK_REASONS.watched) | (contested ? LOOK_REASONS.contested : 0) | (expected < HOUR_MS ? LOOK_REASONS.moving : 0);
  return { intervalMs, reasons };
};

/** The next scheduled look from what is known; a page never looked at is due now. */
export const scheduledLook = (
  watch: Known & Pick<VariantWatch, 'scheduledAt'>,
  settings: ReadPlannerSettings,
): { readonly at: number; readonly reasons: number } => {
  if (watch.lastLookAt === null) return { at: watch.scheduledAt, reasons: LOOK_REASONS.new };
  const { intervalMs, reasons } = lookInterval(watch, settings);
  return { at: watch.lastLookAt + intervalMs, reasons };
};

/**
 * A look that saw a move after a long quiet spell: the estimate still remembers the quiet, so
 * the next look comes at most half the last gap later (never within the floor). A market that
 * starts moving is read often within a few looks, not after hours of evidence.
 */
export const afterMoveSeen = (scheduledAt: number, look: { readonly at: number; readonly gapMs: number; readonly moved: boolean }, floorMs: number): number =>
  look.moved ? Math.min(scheduledAt, look.at + Math.max(floorMs, look.gapMs / 2)) : scheduledAt;

/**
 * The order in which due looks are taken within a tenant's share: a look brought forward by an
 * event or a sync at its time; a scheduled look at the time it would miss a second look (its due
 * time plus its interval), so a fast market late by a minute goes before a quiet one late by
 * the same, yet a quiet one is never starved.
 */
export const urgencyKey = (watch: Pick<VariantWatch, 'lastLookAt' | 'scheduledAt' | 'forwardAt'>): number => {
  if (watch.forwardAt !== null && watch.forwardAt <= watch.scheduledAt) return watch.forwardAt;
  const interval = watch.lastLookAt === null ? 0 : watch.scheduledAt - watch.lastLookAt;
  return watch.scheduledAt + interval;
};

/** Whether a tenant's own offer, at any of its prices, is within `within` (a share) of the winning price. */
export const buyBoxContested = (ownPrices: readonly number[], winningPrice: number | null, within: number): boolean =>
  winningPrice !== null && winningPrice > 0 && ownPrices.some((price) => Math.abs(price - winningPrice) <= winningPrice * within);
