import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/apply-price-change/handler.js';
import { listingPartition, priceChangePartition } from '../../../../lambdas/data/table/keys.js';
import { PRICE_CHANGE_CELLS, PRICE_CHANGE_LIST } from '../../../../lambdas/data/price-changes/list.js';
import { idKey } from '../../../../lambdas/data/table/sort-keys.js';
import type { PriceChange, PriceChangeStatus } from '../../../../lambdas/domain/records.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { apiEvent, CONTEXT, expectProblem, TENANT } from '../../fixtures/api-events.js';

/**
 * POST /v1/price-changes/{id}/apply over a mocked table: the price change is found through the
 * caller's own list (a BatchGet of its id's listing keys, whose `origin` names the canonical
 * item), read consistently, and moved `suggested` -> `pending` by one conditional update.
 */
type Item = Record<string, NativeAttributeValue>;

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'test-table';
const ORIGIN = { pk: priceChangePartition('c1', 'SKU 1'), sk: 'PC#7#OWN#00000001' };

const record = (status: PriceChangeStatus): PriceChange => ({
  id: 42,
  uid: '9b0e6c2d-1f4a-4e8b-a3c5-7d2f1e0b9a61',
  repricer_id: 7,
  offer_id: 'OWN',
  product_code: 'SKU 1',
  connector: 'takealot',
  old_price: 50,
  new_price: 44,
  reason: 'undercut',
  lowest_competitor_price: 45,
  competitor_offer_id: 'C-1',
  status,
  status_reason: status === 'suggested' ? 'Held: the connection is in suggest mode.' : null,
  sent_price: null,
  sent_at: null,
  applied_at: null,
  explanation: null,
  created_at: '2026-11-22T10:15:30.123Z',
  updated_at: '2026-11-22T10:15:30.123Z',
});
const canonical = (status: PriceChangeStatus): Item => ({ ...ORIGIN, entity: 'priceChange', sv: 2, record: record(status) });
/** c1's listing of id 42, as the maintainer wrote it (the listed copy may lag the canonical item). */
const listing = (cell = 'suggested|undercut'): Item => ({
  pk: listingPartition('c1', PRICE_CHANGE_LIST.tag, cell),
  sk: idKey(42),
  entity: 'priceChangeListing',
  cell,
  origin: ORIGIN,
});

/** Serves BatchGet and Get from `items`: what a key names, or nothing. */
const serve = (items: Item[]) => {
  const find = (key: Item) => items.find((item) => item.pk === key.pk && item.sk === key.sk);
  ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: Item[] }> }) => ({
    Responses: { [TABLE]: input.RequestItems[TABLE]!.Keys.flatMap((key) => find(key) ?? []) },
  }));
  ddb.on(GetCommand).callsFake((input: { Key: Item }) => {
    const item = find(input.Key);
    return item ? { Item: item } : {};
  });
};
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

const post = (id: string, clientId = 'c1') =>
  handler(
    {
      ...apiEvent({ method: 'POST', path: '/v1/price-changes/{id}/apply', authorizer: { ...TENANT, clientId } }),
      pathParameters: { id },
    },
    CONTEXT,
  );

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  ddb.on(BatchGetCommand).resolves({ Responses: { [TABLE]: [] } });
  ddb.on(GetCommand).resolves({});
  ddb.on(UpdateCommand).rejects(new Error('Not expected'));
});

describe('POST /v1/price-changes/{id}/apply', () => {
  it('answers 200 with the price change, moved from suggested to pending and marked as requested by one conditional update', async () => {
    // Arrange
    serve([listing(), canonical('suggested')]);
    const pending = { ...record('pending'), status_reason: null, updated_at: '2026-11-22T10:20:00.000Z' };
    ddb.on(UpdateCommand).resolves({ Attributes: { ...canonical('pending'), record: pending, requested: true } });

    // Act
    const response = await post('42');

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual(pending);
    const [update] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(update).toMatchObject({ TableName: TABLE, Key: ORIGIN });
    expect(update?.ConditionExpression).toBe('attribute_exists(pk) AND (#r.#status IN (:from0) OR attribute_not_exists(#r.#status))');
    expect(update?.ExpressionAttributeValues).toMatchObject({ ':from0': 'suggested', ':to': 'pending', ':f0': null, ':s0': true });
    expect(update?.ExpressionAttributeNames).toMatchObject({ '#f0': 'status_reason', '#s0': 'requested' });
  });

  it("looks the id up in every cell of the caller's own list, then reads the canonical item consistently", async () => {
    // Arrange: listed in a cell of another status (the listing lags); the canonical item decides
    serve([listing('pending|undercut'), canonical('suggested')]);
    ddb.on(UpdateCommand).resolves({ Attributes: canonical('pending') });

    // Act
    await post('42');

    // Assert
    const keys = ddb.commandCalls(BatchGetCommand).flatMap((call) => call.args[0].input.RequestItems![TABLE]!.Keys!);
    expect(keys).toEqual(PRICE_CHANGE_CELLS.map((cell) => ({ pk: listingPartition('c1', PRICE_CHANGE_LIST.tag, cell), sk: idKey(42) })));
    expect(ddb.commandCalls(GetCommand).map((call) => call.args[0].input)).toEqual([{ TableName: TABLE, Key: ORIGIN, ConsistentRead: true }]);
  });

  it.each<PriceChangeStatus>(['pending', 'sent', 'applied', 'failed', 'superseded'])(
    'answers 409 naming the status when the price change is %s',
    async (status) => {
      // Arrange
      serve([listing(), canonical(status)]);
      ddb.on(UpdateCommand).rejects(conditionFailed());

      // Act
      const response = await post('42');

      // Assert
      const problem = expectProblem(response, 409, 'urn:repricer:problem:conflict');
      expect(problem.detail).toBe(`Price change 42 is ${status}: only a suggested price change can be applied.`);
    },
  );

  it('answers 404 when the price change expired after it was listed, and writes nothing', async () => {
    // Arrange
    serve([listing()]);

    // Act
    const response = await post('42');

    // Assert
    expectProblem(response, 404);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('answers 404 when the price change expired between the read and the update', async () => {
    // Arrange: found, then gone when the update's condition fails
    const items = [listing(), canonical('suggested')];
    serve(items);
    ddb.on(UpdateCommand).callsFake(() => {
      items.pop();
      throw conditionFailed();
    });

    // Act
    const response = await post('42');

    // Assert
    expectProblem(response, 404);
  });

  it("answers another client's id exactly as an unknown one, reading only the caller's keys", async () => {
    // Arrange: id 42 is c1's
    serve([listing(), canonical('suggested')]);

    // Act
    const foreign = await post('42', 'c2');
    const unknown = await post('43');

    // Assert
    expectProblem(foreign, 404);
    expect(foreign.body).toBe(unknown.body);
    const keys = ddb.commandCalls(BatchGetCommand).flatMap((call) => call.args[0].input.RequestItems![TABLE]!.Keys!);
    expect(keys.filter((key) => String(key.sk) === idKey(42)).every((key) => String(key.pk).startsWith('T#c2#'))).toBe(true);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it("ignores a listing whose origin is not one of the caller's price changes", async () => {
    // Arrange: a corrupt listing pointing into another tenant
    const foreignOrigin = { pk: priceChangePartition('c2', 'SKU 1'), sk: ORIGIN.sk };
    serve([
      { ...listing(), origin: foreignOrigin },
      { ...canonical('suggested'), ...foreignOrigin },
    ]);

    // Act
    const response = await post('42');

    // Assert
    expectProblem(response, 404);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it.each(['abc', '0', '042', '-1', '4.2', '99999999999999999999'])('answers the malformed id %p with the same 404, reading nothing', async (id) => {
    // Act
    const response = await post(id);

    // Assert
    expect(response.body).toBe((await post('43')).body);
    expectProblem(response, 404);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });
});
