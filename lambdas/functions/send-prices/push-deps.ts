import type { RetryOptions } from '../../marketplace/retrying.js';

/**
 * What a push waits on, given by its caller: the clock, a sleep, and the marketplace retries'
 * settings (the worker gives real ones; tests move the clock past a wait instead of sleeping).
 */
export interface PushDeps {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly retry?: Partial<RetryOptions>;
}
