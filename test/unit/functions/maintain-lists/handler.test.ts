import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/maintain-lists/handler.js';
import { counterKey } from '../../../../lambdas/data/table/keys.js';
import { OFFER_LIST } from '../../../../lambdas/data/offers/list.js';
import { upsertOffers } from '../../../../lambdas/data/offers/write.js';
import { totalOf } from '../../../../lambdas/data/lists/ranked/nodes.js';
import type { ListChangesMessage } from '../../../../lambdas/events/list-changes.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { nodeDiscrepancies } from '../../../support/rank-check.js';
import { FakeTable, TABLE } from '../../data/fake-table.js';
import { offerFields, product, productItem } from '../../data/fixtures.js';
import { listState } from '../../data/lists/ranked/seed-list.js';

const ddb = mockClient(DynamoDBDocumentClient);

let table: FakeTable;
let sequence = 10_000;

const sqsRecord = (body: string, groupId = 'c1', sequenceNumber = String(++sequence)): SQSRecord => ({
  messageId: `message-${sequenceNumber}-${groupId}`,
  receiptHandle: `receipt-${sequenceNumber}`,
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '1780000000000',
    SenderId: 'forwarder',
    ApproximateFirstReceiveTimestamp: '1780000000000',
    SequenceNumber: sequenceNumber,
    MessageGroupId: groupId,
    MessageDeduplicationId: `dedup-${sequenceNumber}`,
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:list-changes.fifo',
  awsRegion: 'eu-west-1',
});
const message = (offerIds: string[], clientId = 'c1'): string =>
  JSON.stringify({
    clientId,
    offers: offerIds.map((offerId) => ({ offerId, productCode: 'SKU-1', cells: [] })),
    products: [],
    priceChanges: [],
    rebuilds: [],
    offerStates: [],
    watches: [],
  } satisfies ListChangesMessage);
const invoke = (...records: SQSRecord[]) => handler({ Records: records } satisfies SQSEvent);

const listedIds = () =>
  table
    .withPrefix('T#c1#OL#')
    .map((item) => String(item.sk))
    .sort();
const total = () =>
  listState(table, 'c1', OFFER_LIST)
    .nodes.get('id')!
    .chunks.reduce((sum, chunk) => sum + totalOf(chunk), 0);

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(async () => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  table = new FakeTable([productItem(product()), { ...counterKey('offer'), value: 0 }]).serve(ddb);
  const inputs = ['A', 'B', 'C'].map((offerId) => ({ ...offerFields({ offer_id: offerId }), product_code: 'SKU-1' }));
  await upsertOffers({ clientId: 'c1', sellerId: 'seller-own', defaultConnector: 'takealot' }, inputs);
});

describe('the list maintainer', () => {
  it('brings the lists in line with every message of the batch', async () => {
    // Act
    const response = await invoke(sqsRecord(message(['A'])), sqsRecord(message(['B', 'C'])));

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(listedIds()).toEqual(['00000001', '00000002', '00000003']);
    const { places, nodes } = listState(table, 'c1', OFFER_LIST);
    expect(nodeDiscrepancies(OFFER_LIST, places, nodes)).toEqual([]);
  });

  it('reports a message that fails and every message after it, as a FIFO queue needs, and keeps the work before it', async () => {
    // Prepare
    const records = [sqsRecord(message(['A'])), sqsRecord('{"clientId": "c1", "offers": "not a list"}'), sqsRecord(message(['B']))];

    // Act
    const response = await invoke(...records);

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.messageId }, { itemIdentifier: records[2]!.messageId }] });
    expect(listedIds()).toEqual(['00000001']);
  });

  it("holds back only its own tenant's messages when another tenant's poison message comes first in the batch", async () => {
    // Prepare: SQS FIFO mixes groups in a batch; tenant c0's message cannot be parsed
    const records = [sqsRecord('not json', 'c0'), sqsRecord(message(['A'])), sqsRecord(message(['B']), 'c0'), sqsRecord(message(['B', 'C']))];

    // Act
    const response = await invoke(...records);

    // Assess: c0's messages go back (the later one too, to stay in order); c1's are done
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.messageId }, { itemIdentifier: records[2]!.messageId }] });
    expect(listedIds()).toEqual(['00000001', '00000002', '00000003']);
  });

  it('fails the whole batch, for Lambda to retry, when every message failed in the table', async () => {
    // Prepare
    table.intercept = (command) => {
      if (command === 'BatchWrite') throw Object.assign(new Error('Internal server error'), { name: 'InternalServerError' });
    };

    // Act & Assess
    await expect(invoke(sqsRecord(message(['A'])), sqsRecord(message(['B'])))).rejects.toThrow('All records failed processing');
    expect(listedIds()).toEqual([]);
  });

  it('counts a message delivered twice (same sequence number) once', async () => {
    // Prepare
    const first = sqsRecord(message(['A', 'B']));
    const again = { ...first, messageId: 'redelivered', attributes: { ...first.attributes, ApproximateReceiveCount: '2' } };

    // Act
    await invoke(first);
    await invoke(again);
    await invoke(first, again);

    // Assess
    expect(total()).toBe(2);
    const { places, nodes } = listState(table, 'c1', OFFER_LIST);
    expect(nodeDiscrepancies(OFFER_LIST, places, nodes)).toEqual([]);
  });

  it("records the own offers' states it is given, one item per offer and time, the same item when delivered again", async () => {
    // Arrange
    const state = (at: string, winning: boolean) => ({
      productCode: 'SKU-1',
      offerId: 'A',
      connector: 'takealot',
      at,
      present: true,
      winning,
      winningDelivery: false,
      price: 10,
    });
    const body = JSON.stringify({
      ...JSON.parse(message([])),
      offerStates: [state('2026-01-01T00:00:00.000Z', true), state('2026-01-01T00:01:00.000Z', false)],
    });

    // Act
    const response = await invoke(sqsRecord(body), sqsRecord(body));

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(table.withPrefix('T#c1#OST#').map((item) => [item.pk, item.sk, item.winning, item.expiresAt])).toEqual([
      ['T#c1#OST#SKU-1', 'A#2026-01-01T00:00:00.000Z', true, Date.parse('2026-01-01T00:00:00.000Z') / 1000 + 90 * 86_400],
      ['T#c1#OST#SKU-1', 'A#2026-01-01T00:01:00.000Z', false, Date.parse('2026-01-01T00:01:00.000Z') / 1000 + 90 * 86_400],
    ]);
  });
});
