/**
 * The Idempotency-Key middleware on the shared chain, over an in-memory stand-in for the
 * table's idempotency items (Powertools' Put/Get/Update/Delete on the plain DynamoDB client).
 */
import { jest } from '@jest/globals';
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { TTL_ATTRIBUTE } from '../../../lambdas/config/table-schema.js';
import { idempotencyPartition } from '../../../lambdas/data/table/keys.js';
import { conflict } from '../../../lambdas/http/errors.js';
import { httpHandler } from '../../../lambdas/http/handler.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_SCOPE, IDEMPOTENCY_TTL_SECONDS, idempotentRequests } from '../../../lambdas/http/idempotency.js';
import { json } from '../../../lambdas/http/responses.js';
import { logger } from '../../../lambdas/observability/logger.js';
import { LOCAL_SECRETS_KEY_ENV, resetKeyProvider } from '../../../lambdas/crypto/key-provider.js';
import { apiEvent, CONTEXT, expectProblem, TENANT } from '../fixtures/api-events.js';

const ddb = mockClient(DynamoDBClient);
type Item = Record<string, AttributeValue>;
const items = new Map<string, Item>();
const keyOf = (key: Item | undefined) => `${key?.pk?.S}|${key?.sk?.S}`;

/** Just enough of DynamoDB for Powertools: conditional put (ALL_OLD on failure), SET updates, get, delete. */
const fakeTable = () => {
  ddb.on(PutItemCommand).callsFake((input: { Item: Item; ExpressionAttributeValues: Item }) => {
    const existing = items.get(keyOf(input.Item));
    const now = Number(input.ExpressionAttributeValues[':now']?.N);
    if (existing && Number(existing[TTL_ATTRIBUTE]?.N) >= now && existing.status?.S !== 'INPROGRESS') {
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: existing });
    }
    if (existing && existing.status?.S === 'INPROGRESS') {
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: existing });
    }
    items.set(keyOf(input.Item), input.Item);
    return {};
  });
  ddb.on(GetItemCommand).callsFake((input: { Key: Item }) => ({ Item: items.get(keyOf(input.Key)) }));
  ddb
    .on(UpdateItemCommand)
    .callsFake((input: { Key: Item; UpdateExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Item }) => {
      const item = { ...(items.get(keyOf(input.Key)) ?? input.Key) };
      for (const assignment of input.UpdateExpression.replace(/^SET /, '').split(', ')) {
        const [name, value] = assignment.split(' = ') as [string, string];
        item[input.ExpressionAttributeNames[name]!] = input.ExpressionAttributeValues[value]!;
      }
      items.set(keyOf(input.Key), item);
      return {};
    });
  ddb.on(DeleteItemCommand).callsFake((input: { Key: Item }) => {
    items.delete(keyOf(input.Key));
    return {};
  });
};

let created = 0;
const createThing = jest.fn(async () => {
  created += 1;
  return json(201, { id: created }, { Location: `/v1/things/${created}` });
});
// Events name POST /v1/repricers: the middleware finds the route (CreateRepricer) from the event, as deployed.
const handler = httpHandler(createThing, { jsonBody: true }).use(idempotentRequests());

const post = (body: unknown, headers: Record<string, string> = {}, tenant = TENANT) =>
  handler(
    apiEvent({
      method: 'POST',
      path: '/v1/repricers',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
      authorizer: tenant,
    }),
    CONTEXT,
  );

beforeAll(() => {
  process.env.TABLE_NAME = 'idempotency-test';
  process.env[LOCAL_SECRETS_KEY_ENV] = '22'.repeat(32);
  resetKeyProvider();
});

afterAll(() => resetKeyProvider());

beforeEach(() => {
  ddb.reset();
  items.clear();
  created = 0;
  createThing.mockClear();
  logger.setLogLevel('SILENT');
  fakeTable();
});

describe('Idempotency-Key', () => {
  it('runs a request without the header as usual and touches no idempotency item', async () => {
    // Act
    const responses = [await post({ a: 1 }), await post({ a: 1 })];

    // Assert
    expect(responses.map((r) => JSON.parse(r.body).id)).toEqual([1, 2]);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers a repeat with the same key and body with the original response, without running the route again', async () => {
    // Act
    const first = await post({ a: 1 }, { 'Idempotency-Key': 'key-1' });
    const second = await post({ a: 1 }, { 'idempotency-key': 'key-1' });

    // Assert
    expect(first.statusCode).toBe(201);
    expect(second).toEqual(first);
    expect(createThing).toHaveBeenCalledTimes(1);
  });

  it('compares bodies as JSON, so key order and spacing do not matter', async () => {
    // Act
    const first = await post({ a: 1, b: [1, 2] }, { 'Idempotency-Key': 'key-order' });
    const second = await handler(
      apiEvent({
        method: 'POST',
        path: '/v1/repricers',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'key-order' },
        body: '{ "b": [1, 2],\n "a": 1 }',
      }),
      CONTEXT,
    );

    // Assert
    expect(second).toEqual(first);
  });

  it("stores the item in the table's idempotency partition with the table's TTL attribute, 24 hours ahead", async () => {
    // Act
    await post({ a: 1 }, { 'Idempotency-Key': 'key-ttl' });

    // Assert
    const [item] = [...items.values()] as [Item];
    expect(item.pk?.S).toBe(idempotencyPartition(IDEMPOTENCY_SCOPE));
    expect(item.sk?.S).toMatch(new RegExp(`^${IDEMPOTENCY_SCOPE}#`));
    expect(item.status?.S).toBe('COMPLETED');
    expect(Number(item[TTL_ATTRIBUTE]?.N) - Date.now() / 1000).toBeGreaterThan(IDEMPOTENCY_TTL_SECONDS - 60);
    expect(Number(item[TTL_ATTRIBUTE]?.N) - Date.now() / 1000).toBeLessThanOrEqual(IDEMPOTENCY_TTL_SECONDS + 1);
    // Neither the key nor the client id is stored in clear.
    expect(JSON.stringify(item.sk)).not.toMatch(/key-ttl|c1/);
  });

  it('answers the same key with another body with a 422 problem, and keeps the original', async () => {
    // Act
    await post({ a: 1 }, { 'Idempotency-Key': 'key-2' });
    const changed = await post({ a: 2 }, { 'Idempotency-Key': 'key-2' });
    const again = await post({ a: 1 }, { 'Idempotency-Key': 'key-2' });

    // Assert
    expect(expectProblem(changed, 422, 'urn:repricer:problem:unprocessable').detail).toMatch(/Idempotency-Key/);
    expect(JSON.parse(again.body)).toEqual({ id: 1 });
    expect(createThing).toHaveBeenCalledTimes(1);
  });

  it('scopes keys per client', async () => {
    // Act
    const mine = await post({ a: 1 }, { 'Idempotency-Key': 'shared-key' });
    const theirs = await post({ a: 1 }, { 'Idempotency-Key': 'shared-key' }, { ...TENANT, clientId: 'c2', username: 'bob' });

    // Assert
    expect([JSON.parse(mine.body).id, JSON.parse(theirs.body).id]).toEqual([1, 2]);
  });

  it('stores only 2xx responses: after an error the key is free for a retry', async () => {
    // Arrange
    createThing.mockImplementationOnce(async () => {
      throw conflict('Taken.');
    });

    // Act
    const failed = await post({ a: 1 }, { 'Idempotency-Key': 'key-3' });
    const retried = await post({ a: 1 }, { 'Idempotency-Key': 'key-3' });

    // Assert
    expect(failed.statusCode).toBe(409);
    expect(retried.statusCode).toBe(201);
    expect(createThing).toHaveBeenCalledTimes(2);
  });

  it('does not store a non-2xx response a route returns instead of throwing', async () => {
    // Arrange
    createThing.mockImplementationOnce(async () => json(400, { no: true }));

    // Act
    await post({ a: 1 }, { 'Idempotency-Key': 'key-4' });

    // Assert
    expect(items.size).toBe(0);
  });

  it('answers a repeat while the first request is still running with a 409 problem, and leaves its record alone', async () => {
    // Arrange
    let release!: () => void;
    createThing.mockImplementationOnce(async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return json(201, { id: 99 });
    });

    // Act
    const first = post({ a: 1 }, { 'Idempotency-Key': 'key-5' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const concurrent = await post({ a: 1 }, { 'Idempotency-Key': 'key-5' });
    release();
    const original = await first;
    const replay = await post({ a: 1 }, { 'Idempotency-Key': 'key-5' });

    // Assert
    expect(expectProblem(concurrent, 409, 'urn:repricer:problem:conflict').detail).toMatch(/still being processed/);
    expect(original.statusCode).toBe(201);
    expect(replay).toEqual(original);
  });

  it.each<[string, Record<string, string>]>([
    ['an empty key', { 'Idempotency-Key': '' }],
    [`a key over ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`, { 'Idempotency-Key': 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1) }],
    ['a key with a control character', { 'Idempotency-Key': 'key\u0007' }],
    ['a key outside ASCII', { 'Idempotency-Key': 'clé' }],
  ])('refuses %s with a 400 naming the header, before any write', async (_case, headers) => {
    // Act
    const response = await post({ a: 1 }, headers);

    // Assert
    const problem = expectProblem(response, 400, 'urn:repricer:problem:validation');
    expect(problem.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key' })]);
    expect(createThing).not.toHaveBeenCalled();
    expect(ddb.calls()).toHaveLength(0);
  });

  it(`accepts a key of exactly ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`, async () => {
    expect((await post({ a: 1 }, { 'Idempotency-Key': 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH) })).statusCode).toBe(201);
  });

  it('answers a throttled idempotency store with 503 and Retry-After, without running the route', async () => {
    // Arrange
    ddb.on(PutItemCommand).rejects(Object.assign(new Error('Rate exceeded for table idempotency-test'), { name: 'ThrottlingException' }));

    // Act
    const response = await post({ a: 1 }, { 'Idempotency-Key': 'key-6' });

    // Assert
    expectProblem(response, 503);
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(response.body).not.toContain('idempotency-test');
    expect(createThing).not.toHaveBeenCalled();
  });

  it('still answers 201 when the response cannot be stored: the resource exists', async () => {
    // Arrange
    ddb.on(UpdateItemCommand).rejects(new Error('store unavailable'));

    // Act
    const response = await post({ a: 1 }, { 'Idempotency-Key': 'key-7' });

    // Assert
    expect(response.statusCode).toBe(201);
    expect(items.size).toBe(0);
  });
});

describe('Idempotency-Key on other routes', () => {
  const SECRET = `whsec_${'ab'.repeat(32)}`;
  const createWebhook = jest.fn(async () => json(201, { id: 7, url: 'https://example.com/hook', secret: SECRET }, { Location: '/v1/webhooks/7' }));
  const webhookHandler = httpHandler(createWebhook, { jsonBody: true }).use(idempotentRequests());
  const postWebhook = (body: unknown, key: string, tenant = TENANT) =>
    webhookHandler(
      apiEvent({
        method: 'POST',
        path: '/v1/webhooks',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
        authorizer: tenant,
      }),
      CONTEXT,
    );

  const apply = jest.fn(async (event: { pathParameters: Record<string, string> | null }) => json(200, { id: Number(event.pathParameters?.id) }));
  const applyHandler = httpHandler(apply as never).use(idempotentRequests());
  const postApply = (id: string, key: string) =>
    applyHandler(
      { ...apiEvent({ method: 'POST', path: '/v1/price-changes/{id}/apply', headers: { 'Idempotency-Key': key } }), pathParameters: { id } },
      CONTEXT,
    );

  beforeEach(() => {
    createWebhook.mockClear();
    apply.mockClear();
  });

  it("keeps a response that shows a secret sealed, and replays it opened: the secret is never in the table's item", async () => {
    // Act
    const first = await postWebhook({ url: 'https://example.com/hook' }, 'hook-1');
    const retry = await postWebhook({ url: 'https://example.com/hook' }, 'hook-1');

    // Assert
    expect(retry).toEqual(first);
    expect(JSON.parse(retry.body).secret).toBe(SECRET);
    expect(createWebhook).toHaveBeenCalledTimes(1);
    const [item] = [...items.values()] as [Item];
    expect(item.status?.S).toBe('COMPLETED');
    expect(JSON.stringify(item)).not.toContain(SECRET);
    expect(JSON.stringify(item)).not.toContain('example.com');
    expect(item.data?.M?.sealedResponse?.M?.v?.N).toBe('1');
  });

  it("does not open a sealed response for another client, even when the item is copied into that client's record", async () => {
    // Arrange
    await postWebhook({ url: 'https://example.com/hook' }, 'hook-2');
    const [stored] = [...items.values()] as [Item];
    const bob = { ...TENANT, clientId: 'c2', username: 'bob' };
    await postWebhook({ url: 'https://example.com/hook' }, 'hook-2', bob);
    const bobsKey = [...items.keys()].find((key) => items.get(key) !== stored)!;
    items.set(bobsKey, { ...stored, pk: items.get(bobsKey)!.pk!, sk: items.get(bobsKey)!.sk! });

    // Act
    const response = await postWebhook({ url: 'https://example.com/hook' }, 'hook-2', bob);

    // Assert
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain(SECRET);
  });

  it('answers the same key on another path (another price change) with a 422, and replays the first path', async () => {
    // Act
    const first = await postApply('5', 'apply-1');
    const other = await postApply('6', 'apply-1');
    const retry = await postApply('5', 'apply-1');

    // Assert
    expect(first.statusCode).toBe(200);
    expectProblem(other, 422, 'urn:repricer:problem:unprocessable');
    expect(retry).toEqual(first);
    expect(apply).toHaveBeenCalledTimes(1);
  });

  it('keeps one namespace of keys per client: the same key on another operation is a 422', async () => {
    // Act
    await post({ a: 1 }, { 'Idempotency-Key': 'shared-op-key' });
    const other = await postApply('5', 'shared-op-key');

    // Assert
    expectProblem(other, 422, 'urn:repricer:problem:unprocessable');
    expect(apply).not.toHaveBeenCalled();
  });
});
