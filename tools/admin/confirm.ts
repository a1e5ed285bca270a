import { createInterface } from 'node:readline/promises';

/**
 * Asks the operator to type `expected` (the prompt through `write`, stderr by default, so stdout
 * stays the command's output); true only when the typed line is exactly it. A closed input
 * counts as a refusal.
 */
export const confirmByTyping = async (
  prompt: string,
  expected: string,
  input: NodeJS.ReadableStream = process.stdin,
  write: (text: string) => void = (text) => process.stderr.write(text),
): Promise<boolean> => {
  const lines = createInterface({ input, terminal: false });
  try {
    write(prompt);
    const answer = await new Promise<string | undefined>((resolve) => {
      lines.once('line', resolve);
      lines.once('close', () => resolve(undefined));
    });
    return answer?.trim() === expected;
  } finally {
    lines.close();
  }
};
