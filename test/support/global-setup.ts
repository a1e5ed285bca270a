import type { DynamoDbLocal } from '../../lib/local/dynamodb-local.js';

/** Kept on globalThis: global-teardown runs in this same process and stops it. */
export interface DynamoDbLocalHolder {
  __dynamoDbLocal?: DynamoDbLocal;
}

/**
 * Jest loads this file with Node's own TypeScript support, not through ts-jest, so a static
 * `.js` import would not resolve: the module is imported by its real `.ts` name instead.
 */
const loadDynamoDbLocal = async () =>
  (await import(new URL('../../lib/local/dynamodb-local.ts', import.meta.url).href)) as typeof import('../../lib/local/dynamodb-local.js');

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
}
