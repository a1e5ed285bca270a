import { jest } from '@jest/globals';

/**
 * Everything written to stdout and stderr from `start()` until `stop()`, kept for a test to
 * search (for a password, a key) and kept off the terminal.
 */
export const captureOutput = () => {
  const written: string[] = [];
  const record = (chunk: unknown) => {
    written.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    return true;
  };
  let spies: { mockRestore(): void }[] = [];
  return {
    written,
    start() {
      spies = [jest.spyOn(process.stdout, 'write').mockImplementation(record), jest.spyOn(process.stderr, 'write').mockImplementation(record)];
    },
    stop() {
      spies.forEach((spy) => spy.mockRestore());
      spies = [];
    },
  };
};
