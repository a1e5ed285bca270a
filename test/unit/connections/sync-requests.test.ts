import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { syncRequestLimit } from '../../../lambdas/config/sync-requests.js';
import { markSyncRan } from '../../../lambdas/data/connections/sync-requests.js';
import type { StoredConnection } from '../../../lambdas/data/connections/connections.js';
import type { SealedValue } from '../../../lambdas/crypto/envelope.js';
import { DEFAULT_SAFETY, type Connection } from '../../../lambdas/domain/connections.js';
import { syncConnectionRoute } from '../../../lambdas/functions/sync-connection/handler.js';
import { logger } from '../../../lambdas/observability/logger.js';
import { apiEvent } from '../fixtures/api-events.js';

const ddb = mockClient(DynamoDBDocumentClient);
const CONNECTION_KEY = { pk: 'T#c1#CONN', sk: 'C#takealot' };
const NOW = Date.parse('2026-11-25T10:00:00.000Z');
const MINUTE = 60_000;
const SYNC_LIMIT = syncRequestLimit();

const record = (overrides: Partial<Connection> = {}): Connection => ({
  connector: 'takealot',
  seller_id: '1000001',
  seller_id_source: 'client',
  entries_skipped: 0,
  uid: '0b6c3f0e-8d7a-4c1b-9e2f-3a4b5c6d7e8f',
  key_last4: 'ZZZZ',
  safety: DEFAULT_SAFETY,
  webhook_secret_set: false,
  mode: 'suggest',
  status: 'connected',
  last_sync_at: '2026-11-25T09:00:00.000Z',
  last_error: null,
  sync_requested_at: null,
  offers_synced: 12,
  prices_sent: 3,
  created_at: '2026-11-20T07:00:00.000Z',
  updated_at: '2026-11-20T08:00:00.000Z',
  ...overrides,
});
const sealedStub: SealedValue = { v: 1, key: 'AA==', iv: 'AA==', tag: 'AA==', data: 'AA==' };

/** The connection item, held here: the Update honours the version condition the way DynamoDB would. */
let item: (StoredConnection & typeof CONNECTION_KEY) | undefined;
const store = (stored: Partial<StoredConnection> = {}) => {
  item = { ...CONNECTION_KEY, entity: 'connection', record: record(), sealedKey: sealedStub, ...stored };
};

const applyUpdate = (input: UpdateCommandInput) => {
  const values = input.ExpressionAttributeValues ?? {};
  const condition = input.ConditionExpression ?? '';
  const holds =
    item !== undefined &&
    item.record.uid === values[':uid'] &&
    (condition.includes('attribute_not_exists(syncRequests)') ? item.syncRequests === undefined : item.syncRequests?.version === values[':version']);
  if (!holds) throw new ConditionalCheckFailedException({ message: 'condition', $metadata: {} });
  item = {
    ...item!,
    syncRequests: values[':requests'],
    ...(values[':now'] ? { record: { ...item!.record, sync_requested_at: values[':now'] as string } } : {}),
  };
  return { Attributes: structuredClone(item) };
};

const post = (nowMs = NOW) =>
  syncConnectionRoute({ ...apiEvent({ method: 'POST', path: '/v1/connections/{connector}/sync' }), pathParameters: { connector: 'takealot' } }, nowMs);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  item = undefined;
  ddb.on(GetCommand, { Key: CONNECTION_KEY }).callsFake(async () => ({ Item: item ? structuredClone(item) : undefined }));
  ddb.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => applyUpdate(input));
});

describe('POST /v1/connections/{connector}/sync', () => {
  it('accepts the first request: 202 with sync_requested_at set, the accepted time kept and the sync pending', async () => {
    store();
    const answer = await post();
    expect(answer.statusCode).toBe(202);
    expect(answer.headers?.['Sync-Request']).toBe('accepted');
    expect(JSON.parse(answer.body)).toMatchObject({ sync_requested_at: new Date(NOW).toISOString() });
    expect(item?.syncRequests).toEqual({ acceptedAt: [NOW], pending: true, version: 1 });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ConditionExpression).toContain('attribute_not_exists(syncRequests)');
  });

  it('coalesces a request while the accepted sync has not run: 202 coalesced, nothing written', async () => {
    store();
    await post();
    const again = await post(NOW + 15_000);
    expect(again.statusCode).toBe(202);
    expect(again.headers?.['Sync-Request']).toBe('coalesced');
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(item?.syncRequests).toEqual({ acceptedAt: [NOW], pending: true, version: 1 });
  });

  it('accepts again once the sync ran (the worker marked it, or the record shows a full sync after the request)', async () => {
    store();
    await post();
    expect(await markSyncRan('c1', structuredClone(item!))).toBe(true);
    expect((await post(NOW + MINUTE)).headers?.['Sync-Request']).toBe('accepted');
    // A full sync stamped after the request, its mark lost to a race: the request is not pending any more.
    item = { ...item!, record: { ...item!.record, last_sync_at: new Date(NOW + 2 * MINUTE).toISOString() } };
    expect((await post(NOW + 3 * MINUTE)).headers?.['Sync-Request']).toBe('accepted');
    expect(item?.syncRequests?.acceptedAt).toEqual([NOW, NOW + MINUTE, NOW + 3 * MINUTE]);
  });

  it(`refuses beyond ${SYNC_LIMIT.perWindow} accepted within the window: 429 with Retry-After until the oldest leaves it`, async () => {
    const accepted = Array.from({ length: SYNC_LIMIT.perWindow }, (_, n) => NOW - SYNC_LIMIT.windowMs + (n + 1) * 10 * MINUTE);
    store({ syncRequests: { acceptedAt: accepted, pending: false, version: 7 } });
    const refused = post();
    await expect(refused).rejects.toMatchObject({ problem: { status: 429 }, headers: { 'Retry-After': String(10 * 60) } });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    // Once the oldest has left the window, one more is accepted.
    expect((await post(NOW + 10 * MINUTE)).headers?.['Sync-Request']).toBe('accepted');
    expect(item?.syncRequests?.acceptedAt).toHaveLength(SYNC_LIMIT.perWindow);
  });

  it('two concurrent requests with one left under the limit: one accepted, the other coalesced into it', async () => {
    const accepted = Array.from({ length: SYNC_LIMIT.perWindow - 1 }, (_, n) => NOW - (n + 1) * MINUTE);
    store({ syncRequests: { acceptedAt: accepted, pending: false, version: 3 } });
    const answers = await Promise.all([post(), post()]);
    expect(answers.map((answer) => answer.headers?.['Sync-Request']).sort()).toEqual(['accepted', 'coalesced']);
    expect(item?.syncRequests?.acceptedAt).toHaveLength(SYNC_LIMIT.perWindow);
  });

  it('404 when there is no connection', async () => {
    await expect(post()).rejects.toMatchObject({ status: 404 });
  });
});

describe('markSyncRan', () => {
  it('leaves a request accepted after the worker read the connection pending', async () => {
    store();
    await post();
    const seenByWorker = structuredClone(item!);
    await markSyncRan('c1', seenByWorker);
    await post(NOW + MINUTE);
    const staleView = { ...seenByWorker, syncRequests: { ...seenByWorker.syncRequests!, pending: true } };
    expect(await markSyncRan('c1', staleView)).toBe(false);
    expect(item?.syncRequests?.pending).toBe(true);
  });

  it('writes nothing when no sync was pending', async () => {
    store();
    expect(await markSyncRan('c1', structuredClone(item!))).toBe(false);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});
