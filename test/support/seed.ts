import fc from 'fast-check';
import { relative } from 'node:path';
import { bySize } from './profile.js';

/**
 * The one seed every fast-check run of a test file uses: `FC_SEED` when set (a signed 32-bit
 * integer, as fast-check prints it), else a random one. A failing run's message names the seed
 * (and fast-check's path to the shrunk counterexample) and ends with the command that runs the
 * same file on the same inputs again:
 *
 *     FC_SEED=-393748094 npm test -- test/property/list-offers.property.test.ts
 *
 * Use it for every `fc.assert`: `fc.assert(property, fcParameters({ numRuns: fcRuns(25, 200) }))`.
 */
export const FC_SEED = ((): number => {
  const text = process.env.FC_SEED?.trim();
  if (text === undefined || text === '') return (Math.random() * 2 ** 32) | 0;
  const seed = Number(text);
  if (!/^-?\d{1,10}$/.test(text) || seed < -(2 ** 31) || seed >= 2 ** 31) {
    throw new Error(`FC_SEED must be an integer from -2147483648 to 2147483647, not ${JSON.stringify(process.env.FC_SEED)}.`);
  }
  return seed;
})();

/** The command that repeats the current test file with this seed. */
export const reproduceCommand = (): string => {
  const testPath = expect.getState().testPath;
  const file = testPath === undefined ? '<test file>' : relative(process.cwd(), testPath);
  return `FC_SEED=${FC_SEED} npm test -- ${file}`;
};

/**
 * Replaces fast-check's reporter with the same message plus the reproduction line; like the
 * default one, it throws with the property's own error as the cause.
 */
const reportWithReproduction = <Ts>(details: fc.RunDetails<Ts>): void => {
  if (!details.failed) return;
  const message = `${fc.defaultReportMessage(details) ?? 'Property failed'}\n\nReproduce with: ${reproduceCommand()}`;
  throw new Error(message, { cause: details.errorInstance });
};

type OwnParameters = 'seed' | 'path' | 'reporter' | 'asyncReporter';

/**
 * How many times a property runs: its `quick` number under `npm test`, its `full` number under
 * `npm run test:full` (test/support/profile.ts); `FC_NUM_RUNS`, when set, is the number for every property (to hunt a rare
 * failure: `FC_NUM_RUNS=5000 npm test -- <file>`).
 */
export const fcRuns = (quick: number, full: number): number => {
  const forced = process.env.FC_NUM_RUNS?.trim();
  if (forced !== undefined && forced !== '') {
    if (!/^[1-9]\d{0,6}$/.test(forced))
      throw new Error(`FC_NUM_RUNS must be a whole number from 1 to 9999999, not ${JSON.stringify(process.env.FC_NUM_RUNS)}.`);
    return Number(forced);
  }
  return bySize(quick, full);
};

/** fast-check parameters with the file's seed and the reporting above; `extra` adds the rest (numRuns, endOnFailure, ...). */
export const fcParameters = <Ts>(extra: Omit<fc.Parameters<Ts>, OwnParameters> = {}): fc.Parameters<Ts> => ({
  ...extra,
  seed: FC_SEED,
  reporter: reportWithReproduction,
});
