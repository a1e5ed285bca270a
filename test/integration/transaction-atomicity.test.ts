/**
 * A create whose transaction fails leaves nothing behind: the (product, connector) slot is the
 * transaction's second write, so a slot item put there beforehand makes the whole transaction
 * fail on its condition, after the repricer item, and before the view and directory items.
 * Against DynamoDB Local through the local HTTP server.
 */
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createLocalDynamoClient } from '../../tools/local/dynamodb-local.js';
import { repricerSlotKey } from '../../lambdas/data/table/keys.js';
import { connectorRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { scanTable, type TableSnapshot } from '../support/table-snapshot.js';

let api: TestApi;
let clientId: string;
const client: [string, string] = ['atomic', 'atomic-password-1'];
const STRAY_ID = 424_242;

const dynamo = () => DynamoDBDocumentClient.from(createLocalDynamoClient(process.env.DYNAMODB_ENDPOINT!));
const slotKey = () => repricerSlotKey(clientId, 'P-ATOMIC', 'amazon');
const create = () =>
  api.request<{ id: number; existing_id?: number }>('POST', '/v1/repricers/', {
    auth: client,
    body: { product_code: 'P-ATOMIC', preferred_price: 100, preferred_profit: 20 },
  });

/** The authorizer's counters of login attempts, which every authorization moves. */
// eslint-disable-next-line no-control-regex -- the NUL separates a key's pk from its sk
const isLoginBookkeeping = (key: string) => /^CLIENT#[^\u0000]*\u0000LOGIN#/.test(key);

/** What changed between two snapshots, by key, apart from the authorizer's bookkeeping. */
const changedKeys = (before: TableSnapshot, after: TableSnapshot): string[] =>
  [...new Set([...before.keys(), ...after.keys()])].filter((key) => !isLoginBookkeeping(key) && before.get(key) !== after.get(key)).sort();

beforeAll(async () => {
  api = await startTestApi();
  ({ clientId } = await api.createClient(client[0], { password: client[1] }));
  await api.importRecords(client[0], [connectorRecord('amazon'), productRecord('P-ATOMIC')]);
}, 120_000);

afterAll(async () => api?.close());

describe('a failed create transaction', () => {
  it('writes no repricer, view or directory item: only the reserved id is spent', async () => {
    // Arrange: the slot is taken by an item no repricer stands behind.
    const db = dynamo();
    await db.send(new PutCommand({ TableName: api.tableName, Item: { ...slotKey(), entity: 'repricerSlot', repricerId: STRAY_ID } }));
    const before = await scanTable(api.tableName);

    // Act
    const response = await create();

    // Assert
    const after = await scanTable(api.tableName);
    expect(response.status).toBe(409);
    expect(response.body.existing_id).toBe(STRAY_ID);
    // The counter reserves ids before the transaction; a gap is harmless, a half-written repricer is not.
    expect(changedKeys(before, after)).toEqual(['COUNTER#repricer\u0000COUNTER']);
    expect([...after.keys()].filter((key) => /#(R|RV|RDIR)#/.test(key))).toEqual([]);
    db.destroy();
  });

  it('leaves nothing that stops the same create once the slot is free', async () => {
    // Arrange
    const db = dynamo();
    await db.send(new DeleteCommand({ TableName: api.tableName, Key: slotKey() }));
    db.destroy();

    // Act
    const response = await create();
    const listed = await api.request<{ meta: { total: number } }>('GET', '/v1/repricers', { auth: client });

    // Assert
    expect(response.status).toBe(201);
    expect(listed.body.meta.total).toBe(1);
  });
});
