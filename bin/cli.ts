/**
 * Administration CLI (tools/admin/cli.ts; docs/administration.md):
 *   npm run cli -- [--stage <name>] clients|import|rebuild|connectors ...
 */
import { runCli } from '../tools/admin/cli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  input: process.stdin,
});
