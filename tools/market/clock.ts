/**
 * Time as the simulator sees it. Everything that depends on time (batch completion, rate-limit
 * refills, stock cycles, price-log timestamps) reads it from one injected clock, so tests step
 * a manual clock instead of sleeping, or hand it the clock the service runs on (the local
 * runtime's, tools/local/clock.ts: the same shape), so both sides read one time.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a clock only moves forward, got ${ms} ms`);
    this.current += ms;
  }
}

/**
 * Whether time passes on `clock` by itself (the system clock, or a clock on the wall clock that a
 * test moves forward): then bots tick and batches settle on timers; a manual clock moves only when told to.
 */
export const movesByItself = (clock: Clock): boolean => !(clock instanceof ManualClock);
