import { setTimeout as delay } from 'node:timers/promises';

/**
 * Waits `ms`, or less when `signal` aborts: a driver that is stopped must not wait out its
 * polling or retry delays, and must leave no timer behind (jest would not exit).
 */
export const sleep = async (ms: number, signal: AbortSignal): Promise<void> => {
  if (signal.aborted) return;
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (!signal.aborted) throw error;
  }
};
