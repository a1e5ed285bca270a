/**
 * The service's time: every read of "now" in the Lambda code goes through `now()`. On AWS it is
 * the wall clock and nothing installs another. A local run or a test that runs the handlers in
 * its own process may install one clock for the whole process (`installClock`), so that the
 * handlers, the local event runtime (tools/local/event-runtime.ts), the marketplace simulator and
 * the test all read one time, and a test that moves it forward moves it everywhere.
 *
 * The domain never reads it (test/unit/architecture/layers.test.ts): it takes time as an argument.
 * Waits measured against themselves (how long a login waits for a busy check) keep the wall clock.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Read at each call (not a copy of `Date.now`), so jest's fake timers and spies on `Date.now` still reach it. */
export const wallClock: Clock = { now: () => Date.now() };

let source: Clock = wallClock;

/** Milliseconds since the epoch, on the installed clock. */
export const now = (): number => source.now();

/** `now()` as an ISO 8601 timestamp, the form the table stores. */
export const nowIso = (): string => new Date(source.now()).toISOString();

/** The installed clock, whichever it is when asked: for code that takes a `Clock` object. */
export const installedClock: Clock = { now };

/** Makes `clock` the process's time; the returned function puts back the one it replaced. */
export const installClock = (clock: Clock): (() => void) => {
  const previous = source;
  source = clock;
  return () => {
    source = previous;
  };
};
