import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { handler as maintainLists } from '../../lambdas/functions/maintain-lists/handler.js';
import { CHANGE_HANDLERS } from '../../lambdas/config/event-sources.js';
import { TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import { documentClient } from '../../lambdas/data/table/dynamo.js';
import { counterKey } from '../../lambdas/data/table/keys.js';
import { upsertOffers } from '../../lambdas/data/offers/write.js';
import type { ListChangesMessage } from '../../lambdas/events/list-changes.js';
import { createTable, deleteTable } from '../../tools/local/create-table.js';
import { createLocalDynamoClient } from '../../tools/local/dynamodb-local.js';
import { createLocalFifoQueue, type LocalFifoQueue } from '../../tools/local/fifo-queue.js';
import { itemsUnder, scanTable } from '../support/table-snapshot.js';
import { offerFields, product, productItem } from '../unit/data/fixtures.js';

/**
 * One tenant's poison message must not fail another tenant's: the list maintainer, as deployed,
 * driven by the local FIFO queue (which, as SQS, puts several groups in one batch) over the
 * run's DynamoDB Local. Tenant A's unparseable message goes first, tenant B's right behind it in
 * the same batch: B's lists are brought up to date at its first delivery, and A's message alone
 * is retried until it is dead-lettered.
 */
jest.setTimeout(60_000);

let dynamo: DynamoDBClient;
let tableName: string;
let queue: LocalFifoQueue | undefined;

beforeAll(async () => {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set: run this test in the jest "integration" project');
  dynamo = createLocalDynamoClient(endpoint);
  tableName = `fifo-isolation-${randomUUID()}`;
  await createTable(dynamo, tableName);
  process.env[TABLE_NAME_ENV] = tableName;
});

afterAll(async () => {
  await queue?.stop();
  await deleteTable(dynamo, tableName);
  dynamo.destroy();
});

const listMessage = (clientId: string, offerIds: string[]): string =>
  JSON.stringify({
    clientId,
    offers: offerIds.map((offerId) => ({ offerId, productCode: 'SKU-1', cells: [] })),
    products: [],
    priceChanges: [],
    rebuilds: [],
    offerStates: [],
    watches: [],
  } satisfies ListChangesMessage);

it("dead-letters tenant A's poison message alone and brings tenant B's lists up to date from the same batch", async () => {
  // Arrange: tenant B has two offers its lists do not show yet
  await documentClient.send(new PutCommand({ TableName: tableName, Item: productItem(product(), 'tenant-b') }));
  await documentClient.send(new PutCommand({ TableName: tableName, Item: { ...counterKey('offer'), value: 0 } }));
  const inputs = ['B-1', 'B-2'].map((offerId) => ({ ...offerFields({ offer_id: offerId }), product_code: 'SKU-1' }));
  await upsertOffers({ clientId: 'tenant-b', sellerId: 'seller-own', defaultConnector: 'takealot' }, inputs);
  const batches: SQSEvent['Records'][] = [];
  queue = createLocalFifoQueue({
    name: 'list-changes.fifo',
    batchSize: CHANGE_HANDLERS.queueBatchSize,
    maxReceiveCount: CHANGE_HANDLERS.maxReceiveCount,
    visibilityTimeoutMs: 20,
    handler: (event, context) => {
      batches.push(event.Records);
      return maintainLists(event, context);
    },
  });

  // Act: sent in one call, so delivered in one batch
  await queue.send([
    { id: 'a', body: '{"clientId": "tenant-a", "offers": [', groupId: 'tenant-a', deduplicationId: 'a-1' },
    { id: 'b', body: listMessage('tenant-b', ['B-1', 'B-2']), groupId: 'tenant-b', deduplicationId: 'b-1' },
  ]);
  await queue.settle();

  // Assert
  const groupsOf = (records: SQSEvent['Records']) => records.map((record) => record.attributes.MessageGroupId);
  expect(groupsOf(batches[0] ?? [])).toEqual(['tenant-a', 'tenant-b']);
  expect(batches.slice(1).map(groupsOf)).toEqual(Array.from({ length: CHANGE_HANDLERS.maxReceiveCount - 1 }, () => ['tenant-a']));
  expect(queue.deadLetters().map(({ record }) => [record.attributes.MessageGroupId, record.attributes.ApproximateReceiveCount])).toEqual([
    ['tenant-a', String(CHANGE_HANDLERS.maxReceiveCount)],
  ]);
  const listed = itemsUnder(await scanTable(tableName), 'T#tenant-b#OL#');
  expect(listed.size).toBeGreaterThanOrEqual(2);
  expect(queue.depth()).toBe(0);
});
