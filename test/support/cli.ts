/**
 * The administration CLI against the file's table (TABLE_NAME, DYNAMODB_ENDPOINT, as
 * startTestApi sets them), two ways:
 * - `cliProcess`: as an operator runs it, a process of its own (tsx, bin/cli.ts), typing `input`;
 * - `cliInProcess`: the same command line through the same `runCli` in this process, without the
 *   second or so a process spends loading TypeScript and the SDK; for the commands whose process
 *   plumbing another call already shows.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runCli } from '../../tools/admin/cli.js';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const ROOT = new URL('../..', import.meta.url).pathname;
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

export const cliProcess = (args: readonly string[], input = ''): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, join(ROOT, 'bin/cli.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });

export const cliInProcess = async (args: readonly string[], input = ''): Promise<CliResult> => {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    input: Readable.from([input]),
  });
  return { code, stdout, stderr };
};
