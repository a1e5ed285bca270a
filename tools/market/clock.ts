/**
 * Time as the simulator sees it. Everything that depends on time (batch completion, rate-limit
 * refills, stock cycles, price-log timestamps) reads it from one injected clock, so tests step
 * a manual clock instead of sleeping.
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
