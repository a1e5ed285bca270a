import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { evaluateProduct } from '../../../../lambdas/functions/evaluate-repricers/evaluate.js';
import { priceChangeKey } from '../../../../lambdas/data/table/keys.js';
import { readProductForRepricing } from '../../../../lambdas/data/repricing/inputs.js';
import { storedPriceChange } from '../../../../lambdas/data/price-changes/list.js';
import type { PriceChange } from '../../../../lambdas/domain/records.js';
import { offerFields, product } from '../fixtures.js';

/**
 * The repricing evaluator over a small in-memory table behind the mocked document client:
 * what one evaluation reads and writes, its deterministic keys, and what a replay writes; and
 * the SQS FIFO consumer around it (lambdas/functions/evaluate-repricers/handler.ts).
 */
type Item = Record<string, NativeAttributeValue>;

const ddb = mockClient(DynamoDBDocumentClient);
const CLIENT = 'c1';
const CODE = 'SKU/1#a';
const PARTITION = `T#${CLIENT}#P#${encodeURIComponent(CODE)}`;
const RETENTION_DAYS = 90;

let table: Map<string, Item>;
/** Throws instead of writing the next decision state, once, when set. */
let failNextDecisionState = false;

const keyOf = (key: Item) => `${String(key.pk)}\u0000${String(key.sk)}`;
const put = (item: Item) => table.set(keyOf(item), structuredClone(item));
const itemsUnder = (pk: string) => [...table.values()].filter((item) => item.pk === pk).sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
const storedPriceChanges = () => itemsUnder(`T#${CLIENT}#PC#${encodeURIComponent(CODE)}`);
/** The price changes as read back: the explanation, kept compressed beside the record, back in it. */
const priceChanges = (): Item[] => storedPriceChanges().map((item) => ({ ...item, record: storedPriceChange.parse(item).record }));
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

const fakeTable = () => {
  ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Item }) => ({
    Items: itemsUnder(String(input.ExpressionAttributeValues[':pk'])).map((item) => structuredClone(item)),
  }));
  ddb.on(GetCommand).callsFake((input: { Key: Item }) => {
    const item = table.get(keyOf(input.Key));
    return item ? { Item: structuredClone(item) } : {};
  });
  ddb.on(PutCommand).callsFake((input: { Item: Item; ConditionExpression?: string }) => {
    if (input.ConditionExpression === 'attribute_not_exists(pk)' && table.has(keyOf(input.Item))) throw conditionFailed();
    put(input.Item);
    return {};
  });
  ddb.on(UpdateCommand).callsFake((input: { Key: Item; ExpressionAttributeValues: Item }) => {
    const values = input.ExpressionAttributeValues;
    const current = table.get(keyOf(input.Key)) ?? { ...input.Key };
    if (String(input.Key.pk).startsWith('COUNTER#')) {
      if (current.at !== undefined && !(current.at < values[':at'])) throw conditionFailed();
      const next = { ...current, value: Number(current.value ?? 0) + Number(values[':count']), at: values[':at'] };
      put(next);
      return { Attributes: { value: next.value, at: next.at } };
    }
    if (failNextDecisionState) {
      failNextDecisionState = false;
      throw new Error('Lambda timed out');
    }
    put({
      ...current,
      entity: values[':entity'],
      repricerId: values[':repricer'],
      offerId: values[':offer'],
      decisions: values[':n'],
      lastPrice: values[':price'],
    });
    return {};
  });
};

const offerItem = (offerId: string, price: number, options: { scope?: 'own' | 'other'; connector?: string; status?: string } = {}) => ({
  pk: PARTITION,
  sk: `O#${encodeURIComponent(offerId)}`,
  entity: 'offer',
  sv: 1,
  id: 1 + table.size,
  product_code: CODE,
  connector: options.connector ?? 'amazon',
  scope: options.scope ?? 'other',
  fields: offerFields({
    offer_id: offerId,
    offer_price: price,
    offer_status: options.status ?? 'buyable',
    seller_id: options.scope === 'own' ? 'seller-own' : `seller-${offerId}`,
  }),
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
});

const slotItem = (overrides: Item = {}) => ({
  pk: PARTITION,
  sk: `SLOT#${String(overrides.connector ?? 'amazon')}`,
  entity: 'repricerSlot',
  repricerId: 7,
  enabled: true,
  connector: 'amazon',
  min_price: 30.4,
  preferred_price: 60,
  ...overrides,
});

const OWN = 'OWN/1';

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  table = new Map();
  failNextDecisionState = false;
  fakeTable();
  put({ pk: PARTITION, sk: 'PRODUCT', entity: 'product', record: product({ code: CODE }) });
  put(offerItem(OWN, 50, { scope: 'own' }));
  put(offerItem('C-1', 45));
  put(slotItem());
});

const callsOf = () => ({
  puts: ddb.commandCalls(PutCommand).length,
  updates: ddb.commandCalls(UpdateCommand).length,
  queries: ddb.commandCalls(QueryCommand).length,
});

describe('readProductForRepricing', () => {
  it("reads everything a decision needs with one consistent Query of the product's partition", async () => {
    // Act
    const found = await readProductForRepricing(CLIENT, CODE);

    // Assert
    expect(ddb.commandCalls(QueryCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': PARTITION }, ConsistentRead: true }),
    ]);
    expect(found?.product.code).toBe(CODE);
    expect(found?.offers.map((offer) => [offer.fields.offer_id, offer.scope])).toEqual([
      ['C-1', 'other'],
      [OWN, 'own'],
    ]);
    // A slot written before competitor filters and approaches existed reads with filters that filter nothing, as `cheapest` and `fixed`.
    expect(found?.slots).toEqual([
      {
        repricerId: 7,
        enabled: true,
        connector: 'amazon',
        min_price: 30.4,
        preferred_price: 60,
        buybox_approach: 'cheapest',
        repricer_approach: 'fixed',
        exclude_seller_ids: [],
        min_competitor_rating: null,
        competitor_stock: 'any',
        max_competitor_leadtime_days: null,
        price_war_guard: null,
      },
    ]);
    expect(found?.decisions.size).toBe(0);
  });

  it('is undefined for a product that does not exist', async () => {
    await expect(readProductForRepricing(CLIENT, 'NOPE')).resolves.toBeUndefined();
  });
});

describe('evaluateProduct', () => {
  it("records a decision under keys made of the repricer, the offer and the decision's number, then the decision state", async () => {
    // Act
    const changes = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert
    const expected: Partial<PriceChange> = {
      repricer_id: 7,
      offer_id: OWN,
      product_code: CODE,
      connector: 'amazon',
      old_price: 50,
      new_price: 44,
      reason: 'undercut',
      lowest_competitor_price: 45,
      competitor_offer_id: 'C-1',
    };
    expect(changes).toEqual([expect.objectContaining({ ...expected, id: 1 })]);
    // No connection is live here: the decision waits for the client's apply.
    expect(changes[0]).toMatchObject({ status: 'suggested', status_reason: null, sent_price: null, sent_at: null, applied_at: null });
    expect(changes[0]!.updated_at).toBe(changes[0]!.created_at);
    const [stored] = priceChanges();
    expect(stored).toMatchObject({
      pk: `T#${CLIENT}#PC#SKU%2F1%23a`,
      sk: 'PC#7#OWN%2F1#00000001',
      entity: 'priceChange',
      sv: 2,
      record: changes[0],
    });
    expect(stored?.expiresAt).toBe(Math.floor(Date.parse(changes[0]!.created_at) / 1000) + RETENTION_DAYS * 86_400);
    // The explanation is stored compressed beside the record (one write unit), and reads back whole.
    const [raw] = storedPriceChanges();
    expect(raw?.record).not.toHaveProperty('explanation');
    expect(raw?.explanationZ).toBeInstanceOf(Uint8Array);
    expect(changes[0]!.explanation).toMatchObject({ final_price: 44, reason: 'undercut', steps: [{ rule: 'undercut', offer_id: 'C-1', limit: 44 }] });
    expect(table.get(keyOf({ pk: PARTITION, sk: 'DECISION#7#OWN%2F1' }))).toEqual({
      pk: PARTITION,
      sk: 'DECISION#7#OWN%2F1',
      entity: 'repricerDecision',
      repricerId: 7,
      offerId: OWN,
      decisions: 1,
      lastPrice: 44,
    });
    // The price change is written only where no item is: a second write of the key cannot replace it.
    expect(ddb.commandCalls(PutCommand)[0]?.args[0].input.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it('writes nothing when the same inputs are evaluated again (a message delivered twice)', async () => {
    // Arrange
    await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);
    const before = new Map(table);
    ddb.resetHistory();

    // Act
    const again = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert: one Query, no write at all (not even an id reservation)
    expect(again).toEqual([]);
    expect(callsOf()).toEqual({ puts: 0, updates: 0, queries: 1 });
    expect(table).toEqual(before);
  });

  it('numbers the next decision for the offer when the inputs move', async () => {
    // Arrange
    await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);
    put(offerItem('C-1', 12.5));

    // Act
    const changes = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert
    expect(changes).toEqual([expect.objectContaining({ id: 2, old_price: 50, new_price: 31, reason: 'floor', lowest_competitor_price: 12.5 })]);
    expect(priceChanges().map((item) => item.sk)).toEqual(['PC#7#OWN%2F1#00000001', 'PC#7#OWN%2F1#00000002']);
    expect(table.get(keyOf({ pk: PARTITION, sk: 'DECISION#7#OWN%2F1' }))).toMatchObject({ decisions: 2, lastPrice: 31 });
    expect(changes[0]!.created_at >= (priceChanges()[0]?.record as PriceChange).created_at).toBe(true);
  });

  it('after a failure between the price change and the decision state, a replay writes only the missing state', async () => {
    // Arrange
    failNextDecisionState = true;
    await expect(evaluateProduct(CLIENT, CODE, RETENTION_DAYS)).rejects.toThrow('Lambda timed out');
    const [first] = priceChanges();
    ddb.resetHistory();

    // Act
    const replayed = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert: the price change is the first run's (same id, uid and time), written once
    expect(priceChanges()).toEqual([first]);
    expect(replayed).toEqual([first?.record]);
    expect(ddb.commandCalls(PutCommand).map((call) => call.args[0].input.Item?.sk)).toEqual(['PC#7#OWN%2F1#00000001']);
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input.Key)).toContainEqual({
      pk: `T#${CLIENT}#PC#SKU%2F1%23a`,
      sk: 'PC#7#OWN%2F1#00000001',
    });
    expect(table.get(keyOf({ pk: PARTITION, sk: 'DECISION#7#OWN%2F1' }))).toMatchObject({ decisions: 1, lastPrice: 44 });

    // And a third run finds the decision made: nothing more
    ddb.resetHistory();
    await expect(evaluateProduct(CLIENT, CODE, RETENTION_DAYS)).resolves.toEqual([]);
    expect(callsOf()).toEqual({ puts: 0, updates: 0, queries: 1 });
  });

  it('after such a failure, a replay that decides another price keeps the first decision and records its own after it', async () => {
    // Arrange
    failNextDecisionState = true;
    await expect(evaluateProduct(CLIENT, CODE, RETENTION_DAYS)).rejects.toThrow();
    put(offerItem('C-1', 80));

    // Act
    const replayed = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert
    expect(priceChanges().map((item) => [item.sk, (item.record as PriceChange).new_price, (item.record as PriceChange).reason])).toEqual([
      ['PC#7#OWN%2F1#00000001', 44, 'undercut'],
      ['PC#7#OWN%2F1#00000002', 60, 'ceiling'],
    ]);
    expect(replayed).toEqual([priceChanges()[1]?.record]);
    expect(table.get(keyOf({ pk: PARTITION, sk: 'DECISION#7#OWN%2F1' }))).toMatchObject({ decisions: 2, lastPrice: 60 });
  });

  it('decides nothing, and reads no connector, for a disabled repricer', async () => {
    // Arrange
    put(slotItem({ enabled: false }));

    // Act
    const changes = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert
    expect(changes).toEqual([]);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    expect(callsOf()).toEqual({ puts: 0, updates: 0, queries: 1 });
  });

  it('decides nothing for a product without a repricer, or that does not exist', async () => {
    // Arrange
    table.delete(keyOf({ pk: PARTITION, sk: 'SLOT#amazon' }));

    // Act
    const withoutRepricer = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);
    const missing = await evaluateProduct(CLIENT, 'NOPE', RETENTION_DAYS);

    // Assert
    expect([withoutRepricer, missing]).toEqual([[], []]);
    expect(callsOf()).toEqual({ puts: 0, updates: 0, queries: 2 });
  });

  it("prices on the grid of the connector's price step, and reads the step once per connector", async () => {
    // Arrange: a connector of its own (steps are cached per connector)
    put({ pk: 'CONNECTOR#fine', sk: 'CONNECTOR', entity: 'connectorType', record: {}, priceStep: 0.05 });
    table.delete(keyOf({ pk: PARTITION, sk: 'SLOT#amazon' }));
    put(slotItem({ sk: 'SLOT#fine', connector: 'fine', repricerId: 8 }));
    put(offerItem(OWN, 50, { scope: 'own', connector: 'fine' }));
    put(offerItem('C-1', 45.03, { connector: 'fine' }));
    put(offerItem('C-2', 20, { connector: 'amazon' }));
    put(offerItem('C-3', 21, { connector: 'fine', status: 'not_buyable' }));

    // Act
    const changes = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);
    put(offerItem('C-1', 46.03, { connector: 'fine' }));
    const next = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert
    expect(changes).toEqual([
      expect.objectContaining({ repricer_id: 8, connector: 'fine', new_price: 44.95, lowest_competitor_price: 45.03, competitor_offer_id: 'C-1' }),
    ]);
    expect(next).toEqual([expect.objectContaining({ new_price: 45.95 })]);
    // (The connection's mode is read too, cached per connection: data/connections/mode.ts.)
    const connectorReads = ddb.commandCalls(GetCommand).filter((call) => String(call.args[0].input.Key?.pk).startsWith('CONNECTOR#'));
    expect(connectorReads.map((call) => call.args[0].input.Key)).toEqual([{ pk: 'CONNECTOR#fine', sk: 'CONNECTOR' }]);
  });

  it.each([
    ['no connector item', undefined],
    ['a step with more than 2 decimals', 0.001],
    ['a step that is not positive', 0],
  ])('prices on the 1.00 grid with %s', async (_, priceStep) => {
    // Arrange: a connector of its own per case (steps are cached per connector)
    const uid = `odd${String(priceStep ?? 'none').replace('.', '')}`;
    if (priceStep !== undefined) put({ pk: `CONNECTOR#${uid}`, sk: 'CONNECTOR', entity: 'connectorType', record: {}, priceStep });
    table.delete(keyOf({ pk: PARTITION, sk: 'SLOT#amazon' }));
    put(slotItem({ sk: `SLOT#${uid}`, connector: uid }));
    put(offerItem(OWN, 50, { scope: 'own', connector: uid }));
    put(offerItem('C-1', 45.5, { connector: uid }));

    // Act
    const changes = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert
    expect(changes).toEqual([expect.objectContaining({ new_price: 44 })]);
  });

  it('records one decision per repricer of the product, each with its own id', async () => {
    // Arrange
    put(slotItem({ sk: 'SLOT#ebay', connector: 'ebay', repricerId: 9, min_price: 10, preferred_price: 20 }));
    put(offerItem('OWN-EBAY', 25, { scope: 'own', connector: 'ebay' }));

    // Act
    const changes = await evaluateProduct(CLIENT, CODE, RETENTION_DAYS);

    // Assert
    expect(changes.map((change) => [change.repricer_id, change.offer_id, change.new_price, change.reason])).toEqual([
      [7, OWN, 44, 'undercut'],
      [9, 'OWN-EBAY', 20, 'no_competition'],
    ]);
    expect(new Set(changes.map((change) => change.id)).size).toBe(2);
    expect(new Set(changes.map((change) => change.created_at)).size).toBe(1);
    expect(priceChanges().map((item) => item.sk)).toEqual(['PC#7#OWN%2F1#00000001', 'PC#9#OWN-EBAY#00000001']);
  });

  it('keys a price change by repricer, URI-encoded offer id and a zero-padded decision number', () => {
    expect(priceChangeKey('c9', 'A B', 12, 'X#1', 123)).toEqual({ pk: 'T#c9#PC#A%20B', sk: 'PC#12#X%231#00000123' });
  });
});

describe('the evaluator handler', () => {
  let handler: (event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

  beforeAll(async () => {
    process.env.PRICE_CHANGE_RETENTION_DAYS = '30';
    ({ handler } = await import('../../../../lambdas/functions/evaluate-repricers/handler.js'));
  });

  afterAll(() => {
    delete process.env.PRICE_CHANGE_RETENTION_DAYS;
  });

  const record = (n: number, body: unknown): SQSRecord => ({
    messageId: `m-${n}`,
    receiptHandle: `r-${n}`,
    body: JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '1780000000000',
      SenderId: 'AIDA',
      ApproximateFirstReceiveTimestamp: '1780000000000',
      SequenceNumber: String(n).padStart(20, '0'),
      MessageGroupId: CLIENT,
      MessageDeduplicationId: `d-${n}`,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:repricing.fifo',
    awsRegion: 'eu-west-1',
  });

  it('evaluates the products a message names, keeping price changes for the configured retention', async () => {
    // Act
    const response = await handler({ Records: [record(1, { clientId: CLIENT, products: [CODE, 'UNKNOWN'] })] });

    // Assert
    expect(response).toEqual({ batchItemFailures: [] });
    const [stored] = priceChanges();
    expect(stored?.expiresAt).toBe(Math.floor(Date.parse((stored?.record as PriceChange).created_at) / 1000) + 30 * 86_400);
  });

  it('records nothing more when every message is delivered twice', async () => {
    // Arrange
    const event: SQSEvent = { Records: [record(1, { clientId: CLIENT, products: [CODE] }), record(2, { clientId: CLIENT, products: [CODE] })] };

    // Act
    await handler(event);
    put(offerItem('C-1', 40));
    await handler({ Records: [record(3, { clientId: CLIENT, products: [CODE] })] });
    const afterSecond = priceChanges();
    await handler(structuredClone(event));
    await handler({ Records: [record(3, { clientId: CLIENT, products: [CODE] })] });

    // Assert: two decisions (44, then 39), each recorded once
    expect(afterSecond.map((item) => (item.record as PriceChange).new_price)).toEqual([44, 39]);
    expect(priceChanges()).toEqual(afterSecond);
  });

  it("reports a failed message and every later one of the batch, so the tenant's order holds", async () => {
    // Arrange
    failNextDecisionState = true;

    // Act
    const response = await handler({
      Records: [
        record(1, { clientId: 'c2', products: ['X'] }),
        record(2, { clientId: CLIENT, products: [CODE] }),
        record(3, { clientId: CLIENT, products: [CODE] }),
      ],
    });

    // Assert
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-2' }, { itemIdentifier: 'm-3' }]);
  });

  it("holds back only its own tenant's messages when another tenant's poison message comes first in the batch", async () => {
    // Arrange: SQS FIFO mixes groups in a batch; tenant c0's first message cannot be parsed
    const poison = { ...record(1, {}), body: 'not json', attributes: { ...record(1, {}).attributes, MessageGroupId: 'c0' } };
    const later = { ...record(2, { clientId: 'c0', products: ['X'] }), attributes: { ...record(2, {}).attributes, MessageGroupId: 'c0' } };

    // Act
    const response = await handler({ Records: [poison, later, record(3, { clientId: CLIENT, products: [CODE] })] });

    // Assert: c0's messages go back (the later one too, to stay in order); CLIENT's decision is made
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }, { itemIdentifier: 'm-2' }]);
    expect(priceChanges()).toHaveLength(1);
  });

  it('fails the invocation when every message failed (a message that is not an evaluation request), so the whole batch is retried', async () => {
    await expect(handler({ Records: [record(1, { clientId: CLIENT })] })).rejects.toThrow('All records failed processing');
  });
});
