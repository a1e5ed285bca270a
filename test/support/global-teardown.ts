import type { DynamoDbLocalHolder } from './global-setup.js';

export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as DynamoDbLocalHolder;
  await Promise.all((holder.__dynamoDbLocals ?? []).map((local) => local.stop()));
  delete holder.__dynamoDbLocals;
}
