import { rmSync } from 'node:fs';
import type { DynamoDbWorkersHolder } from './global-setup.js';

/** Stops every DynamoDB Local of the run (test/support/dynamodb-workers.ts), whatever its files did. */
export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as DynamoDbWorkersHolder;
  const directory = holder.__dynamoDbWorkers;
  if (directory === undefined) return;
  const { tsImport } = await import('tsx/esm/api');
  const workers = (await tsImport('./dynamodb-workers.ts', import.meta.url)) as typeof import('./dynamodb-workers.js');
  workers.killAll(directory);
  rmSync(directory, { recursive: true, force: true });
  delete holder.__dynamoDbWorkers;
}
