/**
 * The pace of one reader's storefront requests, per host: each read is at least `spacingMs` after
 * the one before. Kept by the reader that made it (one per container), so it survives from one
 * batch to the next; a wait is never longer than one spacing, so a clock that steps back (or a
 * reader given another clock) slows one read at most, never stalls the reader.
 */
export interface HostPace {
  /** How long to wait before reading from `host` at `now`; books the read's slot. */
  book(host: string, now: number): number;
}

export const hostPace = (spacingMs: number): HostPace => {
  const nextFreeAt = new Map<string, number>();
  return {
    book(host, now) {
      const wait = Math.min(spacingMs, Math.max(0, (nextFreeAt.get(host) ?? 0) - now));
      nextFreeAt.set(host, now + wait + spacingMs);
      return wait;
    },
  };
};
