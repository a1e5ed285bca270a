/**
 * The size of a test run. `npm test` (CI and the inner loop) is the `quick` profile: every
 * behaviour checked, on small data. `npm run test:full` (nightly) sets `TEST_PROFILE=full`:
 * the same tests on the sizes that find rare interleavings and shapes.
 */
export const FULL_PROFILE = process.env.TEST_PROFILE === 'full';

/** `quick` under `npm test`, `full` under `npm run test:full`. */
export const bySize = <T>(quick: T, full: T): T => (FULL_PROFILE ? full : quick);
