import { createInterface } from 'node:readline/promises';

/**
 * Asks the operator to type `expected` (on stderr, so stdout stays the command's output); true
 * only when the typed line is exactly it. A closed input counts as a refusal.
 */
export const confirmByTyping = async (
  prompt: string,
  expected: string,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<boolean> => {
  const lines = createInterface({ input, output, terminal: false });
  try {
    output.write(prompt);
    const answer = await new Promise<string | undefined>((resolve) => {
      lines.once('line', resolve);
      lines.once('close', () => resolve(undefined));
    });
    return answer?.trim() === expected;
  } finally {
    lines.close();
  }
};
