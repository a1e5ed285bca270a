/**
 * Clocks for the local runtime (event-runtime.ts) and the tests that drive it. The service reads
 * its time through lambdas/config/clock.ts; the runtime installs its clock there, so the handlers,
 * the runtime's queues, schedule and stream poller, and a simulator given the same object
 * (tools/market: `clock` option) all read one time.
 */
import type { Clock } from '../../lambdas/config/clock.js';

export type { Clock } from '../../lambdas/config/clock.js';

/** A clock that can say when it jumps, so timers set on it (a queue's held messages) look again at once. */
export interface JumpingClock extends Clock {
  /** Calls `listener` after each jump forward; the returned function stops that. */
  onAdvance(listener: () => void): () => void;
}

export const isJumpingClock = (clock: Clock): clock is JumpingClock => typeof (clock as Partial<JumpingClock>).onAdvance === 'function';

/**
 * The wall clock plus an offset that only grows: time passes as it does (timeouts, retries and
 * DynamoDB Local keep working), and a test moves it forward by minutes or hours at once, for the
 * handlers, the runtime and the simulator alike. At offset 0 it is the wall clock.
 */
export class OffsetClock implements JumpingClock {
  private offset = 0;
  private readonly listeners = new Set<() => void>();

  now(): number {
    return Date.now() + this.offset;
  }

  /** Moves the clock `ms` forward. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a clock only moves forward, got ${ms} ms`);
    if (ms === 0) return;
    this.offset += ms;
    for (const listener of [...this.listeners]) listener();
  }

  /** Moves the clock forward to `atMs`, unless it is there already. */
  advanceTo(atMs: number): void {
    const ahead = atMs - this.now();
    if (ahead > 0) this.advance(ahead);
  }

  onAdvance(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
