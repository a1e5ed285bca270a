import type { DynamoDbLocal } from '../../tools/local/dynamodb-local.js';

/** Kept on globalThis: global-teardown runs in this same process and stops it. */
export interface DynamoDbLocalHolder {
  __dynamoDbLocal?: DynamoDbLocal;
}

/**
 * Jest loads this file with Node's own TypeScript support, not through ts-jest, so a static
 * `.js` import would not resolve: the module is imported by its real `.ts` name instead.
 */
const loadDynamoDbLocal = async () =>
  (await import(new URL('../../tools/local/dynamodb-local.ts', import.meta.url).href)) as typeof import('../../tools/local/dynamodb-local.js');

/**
 * One DynamoDB Local for the whole integration run, on a free port. Workers inherit the
 * environment set here; each test file then works in a table of its own.
 */
export default async function globalSetup(): Promise<void> {
  const { freePort, startDynamoDbLocal } = await loadDynamoDbLocal();
  const dynamo = await startDynamoDbLocal({ port: await freePort() });
  (globalThis as DynamoDbLocalHolder).__dynamoDbLocal = dynamo;
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.AWS_REGION = 'local';
  // The shared instance serves a whole run on a busy machine, where its JVM can pause for
  // seconds under eight concurrent importers: give each attempt 15 s rather than the deployed
  // 1.2 s, which dynamodb-outage.test.ts checks on its own instance (see REQUEST_TIMEOUT_ENV in
  // lambdas/shared/data/dynamo.ts).
  process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '15000';
}
