import { jest } from '@jest/globals';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { deleteConnectionRoute } from '../../../lambdas/functions/delete-connection/handler.js';
import { getConnectionRoute } from '../../../lambdas/functions/get-connection/handler.js';
import { listConnectionsRoute } from '../../../lambdas/functions/list-connections/handler.js';
import { putConnectionRoute } from '../../../lambdas/functions/put-connection/handler.js';
import { LOCAL_SECRETS_KEY_ENV, resetKeyProvider } from '../../../lambdas/crypto/key-provider.js';
import type { SealedValue } from '../../../lambdas/crypto/envelope.js';
import { DEFAULT_SAFETY, type Connection } from '../../../lambdas/domain/connections.js';
import { httpHandler } from '../../../lambdas/http/handler.js';
import { logger } from '../../../lambdas/observability/logger.js';
import { MarketplaceRateLimited, MarketplaceUnavailable, type MarketplacePort } from '../../../lambdas/marketplace/port.js';
import type { MarketplaceLookup } from '../../../lambdas/marketplace/registry.js';
import { openConnectionSecret } from '../../../lambdas/marketplace/secrets.js';
import { connectorType } from '../data/fixtures.js';
import { apiEvent, CONTEXT, expectProblem } from '../fixtures/api-events.js';
import { takealotMarketplace } from '../../../lambdas/marketplace/takealot/marketplace.js';

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'tk_live_unit_test_key_4242';
const SECRET = 'whsec_unit_test_marketplace_secret';
const CONNECTION_KEY = { pk: 'T#c1#CONN', sk: 'C#takealot' };

const connection = (overrides: Partial<Connection> = {}): Connection => ({
  connector: 'takealot',
  seller_id: '1000001',
  seller_id_source: 'client',
  entries_skipped: 0,
  uid: '0b6c3f0e-8d7a-4c1b-9e2f-3a4b5c6d7e8f',
  key_last4: 'ZZZZ',
  safety: DEFAULT_SAFETY,
  webhook_secret_set: false,
  mode: 'suggest',
  status: 'unauthorized',
  last_sync_at: '2026-11-20T08:00:00.000Z',
  last_error: 'the key was refused',
  sync_requested_at: null,
  offers_synced: 12,
  prices_sent: 3,
  created_at: '2026-11-20T07:00:00.000Z',
  updated_at: '2026-11-20T08:00:00.000Z',
  ...overrides,
});
const sealedStub: SealedValue = { v: 1, key: 'AA==', iv: 'AA==', tag: 'AA==', data: 'AA==' };
const storedConnection = (record = connection()) => ({ ...CONNECTION_KEY, entity: 'connection', record, sealedKey: sealedStub });

type Verdict = 'accepted' | 'rejected' | Error;
const marketplace = (verdict: Verdict) => {
  const checked: string[] = [];
  const port = {
    checkKey: async (apiKey: string) => {
      checked.push(apiKey);
      if (verdict instanceof Error) throw verdict;
      return verdict;
    },
  } as unknown as MarketplacePort;
  return {
    checked,
    lookup: (): MarketplaceLookup => ({ kind: 'adapter', port, marketplace: takealotMarketplace, storefrontUrl: 'https://storefront.example' }),
  };
};

const putEvent = (body: unknown, connector = 'takealot') => ({
  ...apiEvent({ method: 'PUT', path: '/v1/connections/{connector}', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  pathParameters: { connector },
});
const put = (lookup: () => MarketplaceLookup, body: unknown, connector?: string) =>
  httpHandler(putConnectionRoute(lookup), { jsonBody: true })(putEvent(body, connector), CONTEXT);
const withConnector = (method: string, connector = 'takealot') => ({
  ...apiEvent({ method, path: '/v1/connections/{connector}' }),
  pathParameters: { connector },
});

const transactItems = () => ddb.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
  process.env[LOCAL_SECRETS_KEY_ENV] = '11'.repeat(32);
  resetKeyProvider();
});

afterAll(() => resetKeyProvider());

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  ddb.on(GetCommand, { Key: { pk: 'CONNECTOR#takealot', sk: 'CONNECTOR' } }).resolves({ Item: { entity: 'connectorType', record: connectorType() } });
  ddb.on(GetCommand, { Key: CONNECTION_KEY }).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
});

describe('PUT /v1/connections/{connector}', () => {
  it('checks the key, then stores the connection with the key and secret sealed and a uid lookup: 201', async () => {
    // Arrange
    const { checked, lookup } = marketplace('accepted');

    // Act
    const response = await put(lookup, { api_key: KEY, webhook_secret: SECRET });

    // Assert
    expect(response.statusCode).toBe(201);
    expect(response.headers?.Location).toBe('/v1/connections/takealot');
    const body = JSON.parse(response.body) as Connection;
    expect(body).toMatchObject({ connector: 'takealot', key_last4: '4242', mode: 'suggest', status: 'connected', webhook_secret_set: true, offers_synced: 0 });
    expect(response.body).not.toContain(KEY);
    expect(checked).toEqual([KEY]);
    const [put1, lookupPut] = transactItems()[0]!;
    expect(put1?.Put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    const item = put1!.Put!.Item!;
    expect(JSON.stringify(item)).not.toContain(KEY);
    expect(JSON.stringify(item)).not.toContain(SECRET);
    expect(await openConnectionSecret('marketplace-key', 'c1', 'takealot', item.sealedKey as SealedValue)).toBe(KEY);
    expect(await openConnectionSecret('marketplace-webhook-secret', 'c1', 'takealot', item.sealedWebhookSecret as SealedValue)).toBe(SECRET);
    // Bound to its tenant and purpose: it does not open as another's.
    await expect(openConnectionSecret('marketplace-key', 'c2', 'takealot', item.sealedKey as SealedValue)).rejects.toThrow();
    await expect(openConnectionSecret('marketplace-webhook-secret', 'c1', 'takealot', item.sealedKey as SealedValue)).rejects.toThrow();
    expect(lookupPut?.Put?.Item).toEqual({
      pk: `CONNUID#${body.uid}`,
      sk: 'CONNUID',
      // Listed in the directory index, where the market schedule finds every connection.
      dirPk: 'CONNECTIONS',
      dirSk: body.uid,
      entity: 'connectionUid',
      clientId: 'c1',
      connector: 'takealot',
    });
  });

  it('replaces a connection in place (200): same uid, history kept, status connected again, only the fields it names, only if unchanged since read', async () => {
    // Arrange
    const before = connection();
    ddb.on(GetCommand, { Key: CONNECTION_KEY }).resolves({ Item: storedConnection(before) });
    ddb.on(UpdateCommand).callsFake((input: { ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> }) => {
      // The stored item with the named record fields set, as DynamoDB would answer ALL_NEW.
      const record: Record<string, unknown> = { ...before };
      for (const [name, field] of Object.entries(input.ExpressionAttributeNames)) {
        if (name.startsWith('#f')) record[field] = input.ExpressionAttributeValues[`:v${name.slice(2)}`];
      }
      return Promise.resolve({ Attributes: { ...storedConnection(record as Connection), sendHoldUntil: '2026-11-20T09:00:00.000Z' } });
    });

    // Act
    const response = await put(marketplace('accepted').lookup, { api_key: KEY, mode: 'live' });

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({
      uid: before.uid,
      created_at: before.created_at,
      last_sync_at: before.last_sync_at,
      offers_synced: 12,
      prices_sent: 3,
      status: 'connected',
      last_error: null,
      mode: 'live',
      key_last4: '4242',
    });
    expect(transactItems()).toHaveLength(0);
    const [update] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(update?.ConditionExpression).toBe('#record.#uid = :uid AND #record.updated_at = :updatedAt AND #record.#status = :seenStatus');
    expect(update?.ExpressionAttributeValues).toMatchObject({ ':uid': before.uid, ':updatedAt': before.updated_at, ':seenStatus': 'unauthorized' });
    // Only what the PUT names: never the counters, the sync times, the hold or the breaker's marker.
    expect(Object.values(update?.ExpressionAttributeNames ?? {}).sort()).toEqual(
      ['key_last4', 'last_error', 'mode', 'record', 'safety', 'status', 'status', 'uid', 'updated_at', 'webhook_secret_set'].sort(),
    );
    expect(update?.UpdateExpression).not.toMatch(/sendHoldUntil|breakerClearedAt|prices_sent|offers_synced|last_sync_at/);
    expect(update?.UpdateExpression).toMatch(/REMOVE sealedWebhookSecret$/);
  });

  it('reads again and keeps the pause when the breaker paused the connection between its read and its write', async () => {
    // Arrange: the first write loses to the pause; the second read sees it.
    const before = connection({ status: 'connected', last_error: null });
    const paused = { ...before, status: 'paused' as const, last_error: 'breaker: 5 of 6 offers dropped' };
    ddb
      .on(GetCommand, { Key: CONNECTION_KEY })
      .resolvesOnce({ Item: storedConnection(before) })
      .resolves({ Item: storedConnection(paused) });
    ddb
      .on(UpdateCommand)
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }))
      .resolves({ Attributes: storedConnection({ ...paused, key_last4: '4242' }) });

    // Act
    const response = await put(marketplace('accepted').lookup, { api_key: KEY });

    // Assert
    expect(response.statusCode).toBe(200);
    const updates = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates).toHaveLength(2);
    expect(updates[1]?.ExpressionAttributeValues).toMatchObject({ ':seenStatus': 'paused' });
    expect(Object.entries(updates[1]?.ExpressionAttributeNames ?? {}).find(([, field]) => field === 'status')).toBeDefined();
    const values = Object.values(updates[1]?.ExpressionAttributeValues ?? {});
    expect(values).toContain('paused');
    expect(values).toContain(paused.last_error);
    expect(values).not.toContain('connected');
  });

  it('answers 409 when another PUT or a PATCH changed the connection between its read and its write', async () => {
    const before = connection();
    ddb
      .on(GetCommand, { Key: CONNECTION_KEY })
      .resolvesOnce({ Item: storedConnection(before) })
      .resolves({ Item: storedConnection({ ...before, updated_at: '2026-11-20T09:00:00.000Z' }) });
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));
    expectProblem(await put(marketplace('accepted').lookup, { api_key: KEY }), 409, 'urn:repricer:problem:conflict');
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('answers 409 and keeps the other request’s connection when the connection changed meanwhile', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejects(
        new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] }),
      );
    expectProblem(await put(marketplace('accepted').lookup, { api_key: KEY }), 409, 'urn:repricer:problem:conflict');
  });

  it('answers 422 for a refused key, and stores nothing', async () => {
    const body = expectProblem(await put(marketplace('rejected').lookup, { api_key: KEY }), 422, 'urn:repricer:problem:unprocessable');
    expect(body.errors).toEqual([{ field: 'api_key', message: expect.any(String) }]);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('answers 503 with Retry-After when the marketplace cannot check the key, its own hint when it gave one, and stores nothing', async () => {
    const down = await put(marketplace(new MarketplaceUnavailable('Takealot seller API answered 500')).lookup, { api_key: KEY });
    expectProblem(down, 503);
    expect(down.headers?.['Retry-After']).toBe('30');
    const limited = await put(marketplace(new MarketplaceRateLimited(2_500)).lookup, { api_key: KEY });
    expectProblem(limited, 503);
    expect(limited.headers?.['Retry-After']).toBe('3');
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('logs why the marketplace could not check a key, never the key', async () => {
    const warned = jest.spyOn(logger, 'warn');
    await put(marketplace(new MarketplaceUnavailable('Takealot seller API not reachable')).lookup, { api_key: KEY });
    expect(warned).toHaveBeenCalledWith(
      'The marketplace could not check an API key',
      expect.objectContaining({ connector: 'takealot', errorName: 'MarketplaceUnavailable' }),
    );
    expect(JSON.stringify(warned.mock.calls)).not.toContain(KEY);
    warned.mockRestore();
  });

  it('answers 404 for a connector type that does not exist, 422 for one without an adapter, 503 when the stage has no URLs', async () => {
    ddb.on(GetCommand, { Key: { pk: 'CONNECTOR#ebay', sk: 'CONNECTOR' } }).resolves({});
    expectProblem(await put(marketplace('accepted').lookup, { api_key: KEY }, 'ebay'), 404);
    expectProblem(await put(marketplace('accepted').lookup, { api_key: KEY }, 'Not-A-Uid'), 404);
    expectProblem(await put(() => ({ kind: 'unsupported' }), { api_key: KEY }), 422, 'urn:repricer:problem:unprocessable');
    expectProblem(await put(() => ({ kind: 'unconfigured' }), { api_key: KEY }), 503);
  });

  it('refuses a body that is not strict or not storable (400) before asking the marketplace', async () => {
    const { checked, lookup } = marketplace('accepted');
    for (const body of [
      { api_key: KEY, extra: true },
      { api_key: KEY, mode: 'auto' },
      { api_key: 'short' },
      { api_key: `${KEY}\u0007` },
      { api_key: KEY, webhook_secret: 'x' },
    ]) {
      expectProblem(await put(lookup, body), 400, 'urn:repricer:problem:validation');
    }
    expect(checked).toEqual([]);
  });
});

describe('GET, list, DELETE and sync', () => {
  it('GET answers the record without the sealed values, 404 when there is none', async () => {
    ddb.on(GetCommand, { Key: CONNECTION_KEY }).resolves({ Item: storedConnection() });
    const found = await getConnectionRoute(withConnector('GET'));
    expect(JSON.parse(found.body)).toEqual(connection());
    ddb.on(GetCommand, { Key: CONNECTION_KEY }).resolves({});
    await expect(getConnectionRoute(withConnector('GET'))).rejects.toMatchObject({ status: 404 });
  });

  it('lists the tenant’s connections from its own partition', async () => {
    ddb.on(QueryCommand).resolves({ Items: [storedConnection()] });
    const listed = await listConnectionsRoute(apiEvent({ path: '/v1/connections' }));
    expect(JSON.parse(listed.body)).toEqual({ connections: [connection()] });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input.ExpressionAttributeValues).toEqual({ ':pk': 'T#c1#CONN', ':prefix': 'C#' });
  });

  it('DELETE removes the connection and its uid lookup together (204), 404 when there is none', async () => {
    ddb.on(GetCommand, { Key: CONNECTION_KEY }).resolves({ Item: storedConnection() });
    const deleted = await deleteConnectionRoute(withConnector('DELETE'));
    expect(deleted.statusCode).toBe(204);
    expect(transactItems()[0]?.map((entry) => entry.Delete?.Key)).toEqual([CONNECTION_KEY, { pk: `CONNUID#${connection().uid}`, sk: 'CONNUID' }]);
    expect(ddb.commandCalls(DeleteCommand)).toHaveLength(0);
    ddb.on(GetCommand, { Key: CONNECTION_KEY }).resolves({});
    await expect(deleteConnectionRoute(withConnector('DELETE'))).rejects.toMatchObject({ status: 404 });
  });
});
