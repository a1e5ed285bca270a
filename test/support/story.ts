/**
 * A story test: steps that build on the ones before (a repricer decides, its competitor moves,
 * it decides again) run in order inside one test, so `jest --randomize`, which shuffles tests,
 * keeps their order. A failure names its step.
 */
export const step = async (name: string, body: () => Promise<void>): Promise<void> => {
  try {
    await body();
  } catch (error) {
    if (error instanceof Error) error.message = `step "${name}":\n${error.message}`;
    throw error;
  }
};
