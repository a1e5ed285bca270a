import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The run's directory of DynamoDB Local records; kept for global-teardown.ts (same process). */
export interface DynamoDbWorkersHolder {
  __dynamoDbWorkers?: string;
}

/**
 * The integration project's settings for every file; workers inherit what is set here. The
 * files' DynamoDB Locals (one per jest worker, kept across its files: test/support/dynamodb-workers.ts)
 * are recorded in a fresh directory made here; test/support/global-teardown.ts stops them all,
 * and so does this process's exit, however the run ends (a failed file, an interrupt).
 *
 * Jest loads this file with Node's own TypeScript support; tsx loads the module that knows the
 * records, whose imports name `.js` files that are `.ts` on disk.
 */
export default async function globalSetup(): Promise<void> {
  process.env.AWS_REGION = 'local';
  // A busy machine can pause a JVM for seconds under eight concurrent importers: give each
  // attempt 15 s rather than the deployed 1.2 s, which dynamodb-outage.test.ts checks on its own
  // instance (see REQUEST_TIMEOUT_ENV in lambdas/data/table/dynamo.ts).
  process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '15000';

  const { tsImport } = await import('tsx/esm/api');
  const workers = (await tsImport('./dynamodb-workers.ts', import.meta.url)) as typeof import('./dynamodb-workers.js');
  const directory = mkdtempSync(path.join(tmpdir(), 'repricer-dynamodb-'));
  process.env[workers.WORKERS_DIR_ENV] = directory;
  (globalThis as DynamoDbWorkersHolder).__dynamoDbWorkers = directory;
  const stopAll = () => {
    workers.killAll(directory);
    rmSync(directory, { recursive: true, force: true });
  };
  process.on('exit', stopAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      stopAll();
      // Node's own "exit on signal", when nothing else listens for it.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}
