import type { SlotHolders } from '../../tools/market/slot-log.js';

/**
 * The share of [from, to) in which `holder` held the Best Price slot by the simulator's slot log
 * (tools/market/slot-log.ts), as the market had it, or as a reader that read the product's page
 * at the times `reads` saw it: from each read until the next, the holder the market had at that read.
 */
const holderAt = (entries: readonly SlotHolders[], at: number) => entries.filter((entry) => entry.at <= at).at(-1)?.best_price ?? null;

const shareOf = (changes: readonly { at: number; holder: string | null }[], holder: string, from: number, to: number): number => {
  let held = 0;
  changes.forEach((change, i) => {
    const start = Math.max(change.at, from);
    const end = Math.min(changes[i + 1]?.at ?? to, to);
    if (change.holder === holder && end > start) held += end - start;
  });
  return held / (to - from);
};

export const bestPriceShare = (entries: readonly SlotHolders[], holder: string, from: number, to: number): number =>
  shareOf(
    entries.map((entry) => ({ at: entry.at, holder: entry.best_price })),
    holder,
    from,
    to,
  );

export const bestPriceShareAsRead = (entries: readonly SlotHolders[], reads: readonly number[], holder: string, from: number, to: number): number =>
  shareOf(
    [...reads].sort((a, b) => a - b).map((at) => ({ at, holder: holderAt(entries, at) })),
    holder,
    from,
    to,
  );

/** How long after each change of the Best Price holder inside [from, to) the page was next read, in total (ms). */
export const readDelayOf = (entries: readonly SlotHolders[], reads: readonly number[], from: number, to: number): number =>
  entries
    .filter((entry, i) => i > 0 && entry.at >= from && entry.at < to && entry.best_price !== entries[i - 1]!.best_price)
    .reduce((total, entry) => total + (Math.min(to, ...reads.filter((at) => at >= entry.at)) - entry.at), 0);
