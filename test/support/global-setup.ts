import type { DynamoDbLocal } from '../../tools/local/dynamodb-local.js';

/** The instances' endpoints, comma-separated, for test/support/worker-dynamodb.ts. */
export const DYNAMODB_ENDPOINTS_ENV = 'TEST_DYNAMODB_ENDPOINTS';

/** Kept on globalThis: global-teardown runs in this same process and stops them. */
export interface DynamoDbLocalHolder {
  __dynamoDbLocals?: readonly DynamoDbLocal[];
}

/**
 * Jest loads this file with Node's own TypeScript support, not through ts-jest, so a static
 * `.js` import would not resolve: the module is imported by its real `.ts` name instead.
 */
const loadDynamoDbLocal = async () =>
  (await import(new URL('../../tools/local/dynamodb-local.ts', import.meta.url).href)) as typeof import('../../tools/local/dynamodb-local.js');

/**
 * One DynamoDB Local per jest worker slot, each on a free port; every test file then works in a
 * table of its own on its worker's instance (test/support/worker-dynamodb.ts). One instance
 * shared by both workers made two files wait on each other's locks: DynamoDB Local keeps every
 * table of a `-sharedDb` instance in one SQLite database, so a file's transactions could stall
 * the other file's for the length of a lock timeout, and two files that take 30 s side by side
 * on separate instances took over 600 s on a loaded machine.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const { freePort, startDynamoDbLocal } = await loadDynamoDbLocal();
  const slots = Math.max(1, globalConfig.maxWorkers);
  const locals: DynamoDbLocal[] = [];
  (globalThis as DynamoDbLocalHolder).__dynamoDbLocals = locals;
  // One after the other: each start warms its instance up, which is CPU-bound on two cores.
  for (let slot = 0; slot < slots; slot++) locals.push(await startDynamoDbLocal({ port: await freePort() }));
  process.env[DYNAMODB_ENDPOINTS_ENV] = locals.map((local) => local.endpoint).join(',');
  process.env.DYNAMODB_ENDPOINT = locals[0]!.endpoint;
  process.env.AWS_REGION = 'local';
  // The instances serve a whole run on a busy machine, where a JVM can pause for seconds under
  // eight concurrent importers: give each attempt 15 s rather than the deployed 1.2 s, which
  // dynamodb-outage.test.ts checks on its own instance (see REQUEST_TIMEOUT_ENV in
  // lambdas/shared/data/dynamo.ts).
  process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '15000';
}
