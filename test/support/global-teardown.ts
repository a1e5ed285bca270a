import type { DynamoDbLocalHolder } from './global-setup.js';

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as DynamoDbLocalHolder;
  await holder.__dynamoDbLocal?.stop();
  delete holder.__dynamoDbLocal;
}
