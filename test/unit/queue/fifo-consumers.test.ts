import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { webhookWorker } from '../../../lambdas/functions/deliver-webhooks/worker.js';
import { handler as processImports } from '../../../lambdas/functions/process-imports/handler.js';
import { storefrontReader } from '../../../lambdas/functions/read-storefront/read.js';
import { priceSenderWorker } from '../../../lambdas/functions/send-prices/worker.js';
import { marketSyncGroup, storefrontGroup, type MarketSyncMessage, type StoreFrontReadMessage } from '../../../lambdas/events/market-sync.js';
import { priceSenderGroup, type PriceSenderMessage } from '../../../lambdas/events/price-sender.js';
import { logger } from '../../../lambdas/observability/logger.js';
import type { QueueMessage } from '../../../lambdas/queue/sender.js';
import { marketSyncWorker } from '../../../lambdas/functions/sync-market/sync.js';
import { sqsEventOf } from '../../support/sqs-events.js';

/**
 * SQS FIFO hands a consumer batches that mix message groups. Tenant A's message fails (the table
 * refuses every call naming A); tenant B's message, later in the same batch, must still be
 * handled, and only A's messages reported (its later one too, to keep its order). The list
 * maintainer's and the evaluator's cases are in their own tests (maintain-lists.test.ts,
 * repricing.test.ts); the price sender and the storefront reader handle a group by hand and answer through the same processor.
 */
const ddb = mockClient(DynamoDBDocumentClient);
/** Every table call's input, as text: which tenants a consumer got to. */
let calls: string[] = [];

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  calls = [];
  logger.setLogLevel('SILENT');
});

/** The table answers "nothing there" to every call, and fails every call naming `poisoned`. */
const tableFailingFor = (poisoned: string) =>
  ddb.onAnyCommand().callsFake((input: unknown) => {
    const text = JSON.stringify(input);
    calls.push(text);
    if (text.includes(poisoned)) return Promise.reject(Object.assign(new Error('Internal server error'), { name: 'InternalServerError' }));
    return Promise.resolve({ Items: [] });
  });

const [uidA, uidB] = ['0d3f5b0e-7c1a-4c39-9a55-3e0f1f6f2b1d', '5e2a1c9b-3f4d-4e8a-8b7c-6d5e4f3a2b1c'];
const failedIds = (response: SQSBatchResponse | void) => (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier);
const idsOf = (event: SQSEvent, ...indexes: number[]) => indexes.map((index) => event.Records[index]!.messageId);

describe('FIFO consumers, one poison message of tenant A ahead of tenant B in a batch', () => {
  it('the import worker handles B and reports only A', async () => {
    // Arrange
    tableFailingFor('tenant-a');
    const job = (clientId: string, importId: number): QueueMessage => ({
      groupId: clientId,
      deduplicationId: `${clientId}-${importId}`,
      body: JSON.stringify({ clientId, importId }),
    });
    const event = sqsEventOf([job('tenant-a', 1), job('tenant-b', 1), job('tenant-a', 2)]);

    // Act
    const response = await processImports(event);

    // Assert
    expect(failedIds(response)).toEqual(idsOf(event, 0, 2));
    expect(calls.some((call) => call.includes('tenant-b'))).toBe(true);
  });

  it('the webhook worker handles B and reports only A', async () => {
    // Arrange
    tableFailingFor('tenant-a');
    const webhookEvent = (clientId: string, n: number): QueueMessage => ({
      groupId: `${clientId}#7`,
      deduplicationId: `${clientId}-${n}`,
      body: JSON.stringify({
        clientId,
        eventId: `REPRICER_PRICE_CHANGED-${n}`,
        eventType: 'REPRICER_PRICE_CHANGED',
        eventTimestamp: '2026-11-23T11:59:59.000Z',
        data: { id: n },
      }),
    });
    const event = sqsEventOf([webhookEvent('tenant-a', 1), webhookEvent('tenant-b', 1), webhookEvent('tenant-a', 2)]);
    const held: string[] = [];

    // Act
    const response = await webhookWorker((record) => Promise.resolve(void held.push(record.messageId)))(event);

    // Assert
    expect(failedIds(response)).toEqual(idsOf(event, 0, 2));
    expect(calls.some((call) => call.includes('tenant-b'))).toBe(true);
    expect(held).toEqual([]);
  });

  it('the sync worker handles B and reports only A', async () => {
    // Arrange
    tableFailingFor(uidA);
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    const tick = (uid: string, n: number): QueueMessage => {
      const body: MarketSyncMessage = { kind: 'tick', uid, at };
      return { groupId: marketSyncGroup(uid), deduplicationId: `${uid}-${n}`, body: JSON.stringify(body) };
    };
    const event = sqsEventOf([tick(uidA, 1), tick(uidB, 1), tick(uidA, 2)]);

    // Act
    const response = await marketSyncWorker({})(event);

    // Assert
    expect(failedIds(response)).toEqual(idsOf(event, 0, 2));
    expect(calls.some((call) => call.includes(uidB))).toBe(true);
  });

  it('the price sender handles B and reports only A', async () => {
    // Arrange
    tableFailingFor('tenant-a');
    const sweep = (clientId: string, n: number): QueueMessage => {
      const body: PriceSenderMessage = { kind: 'sweep', clientId, connector: 'takealot', reason: 'tick' };
      return { groupId: priceSenderGroup(clientId, 'takealot'), deduplicationId: `${clientId}-${n}`, body: JSON.stringify(body) };
    };
    const event = sqsEventOf([sweep('tenant-a', 1), sweep('tenant-b', 1), sweep('tenant-a', 2)]);

    // Act
    const response = await priceSenderWorker()(event);

    // Assert
    expect(failedIds(response).sort()).toEqual(idsOf(event, 0, 2).sort());
    expect(calls.some((call) => call.includes('tenant-b'))).toBe(true);
  });

  it('the storefront reader handles B and reports only A, even when SQS refuses to hold A back', async () => {
    // Arrange
    // Pages of product lines 111 (A) and 222 (B): the table fails every call naming page A.
    tableFailingFor('takealot#111');
    const read = (productLineId: string, n: number): QueueMessage => {
      const body: StoreFrontReadMessage = { connector: 'takealot', productLineId, reasons: 0, at: new Date().toISOString() };
      return { groupId: storefrontGroup('takealot', productLineId), deduplicationId: `${productLineId}-${n}`, body: JSON.stringify(body) };
    };
    const event = sqsEventOf([read('111', 1), read('222', 1), read('111', 2)]);
    const refuseHold = () => Promise.reject(Object.assign(new Error('throttled'), { name: 'RequestThrottled' }));

    // Act
    const response = await storefrontReader(refuseHold, { sleep: () => Promise.resolve() })(event);

    // Assert
    expect(failedIds(response)).toEqual(idsOf(event, 0, 2));
    expect(calls.some((call) => call.includes('takealot#222'))).toBe(true);
  });
});
