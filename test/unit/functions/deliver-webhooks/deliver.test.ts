import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { deliverEvent, type DeliveryOptions } from '../../../../lambdas/functions/deliver-webhooks/deliver.js';
import type { WebhookEventMessage } from '../../../../lambdas/events/webhook-events.js';
import type { Resolver } from '../../../../lambdas/webhooks/destination.js';

/**
 * The worker's decisions against a stored delivery: a delivery that is over sends nothing again,
 * one not yet due waits without sending, and a forbidden address is never connected to.
 */
const documents = mockClient(DynamoDBDocumentClient);
const NOW = Date.parse('2026-11-23T12:00:00.000Z');

const message: WebhookEventMessage = {
  clientId: 'c1',
  eventId: 'REPRICER_PRICE_CHANGED-9',
  eventType: 'REPRICER_PRICE_CHANGED',
  eventTimestamp: '2026-11-23T11:59:59.000Z',
  data: { id: 9 },
};
const webhook = {
  entity: 'webhook',
  secret: `whsec_${'a'.repeat(64)}`,
  record: {
    id: 4,
    uid: '2c7d4f8e-5a1b-4c3d-9e8f-0a1b2c3d4e5f',
    url: 'https://hooks.example.com/in',
    event_types: ['REPRICER_PRICE_CHANGED'],
    created_at: '2026-11-23T11:00:00.000Z',
  },
};
const stored = (record: Record<string, unknown>) => ({
  entity: 'webhookDelivery',
  body: '{}',
  firstAttemptAt: NOW - 10_000,
  record: {
    id: '4-REPRICER_PRICE_CHANGED-9',
    event_type: 'REPRICER_PRICE_CHANGED',
    event_timestamp: message.eventTimestamp,
    status: 'pending',
    attempts: 1,
    last_status_code: 500,
    last_error: 'answered 500',
    last_attempt_at: new Date(NOW - 60_000).toISOString(),
    next_attempt_at: new Date(NOW + 25_000).toISOString(),
    delivered_at: null,
    created_at: new Date(NOW - 60_000).toISOString(),
    updated_at: new Date(NOW - 60_000).toISOString(),
    ...record,
  },
});

const resolved: string[] = [];
const options = (resolve: Resolver): DeliveryOptions => ({
  resolve,
  schedule: { baseDelayMs: 1_000, maxDelayMs: 8_000, windowMs: 60_000 },
  timeoutMs: 500,
  now: () => NOW,
});
const neverResolve: Resolver = async (host) => {
  resolved.push(host);
  throw new Error('not expected');
};

beforeAll(() => {
  process.env.TABLE_NAME = 'deliver-test';
});

beforeEach(() => {
  documents.reset();
  resolved.length = 0;
  documents.on(QueryCommand).resolves({ Items: [webhook] });
  documents.on(PutCommand).rejects(Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' }));
  documents.on(UpdateCommand).resolves({});
});

describe('deliverEvent', () => {
  it.each(['delivered', 'dead_lettered'])('sends nothing again for a delivery already %s', async (status) => {
    // Prepare
    documents.on(GetCommand).resolves({ Item: stored({ status, next_attempt_at: null }) });

    // Act
    const wait = await deliverEvent(message, options(neverResolve));

    // Assert
    expect(wait).toBeUndefined();
    expect(resolved).toEqual([]);
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('waits, without sending, for a pending delivery that is not due yet', async () => {
    documents.on(GetCommand).resolves({ Item: stored({}) });
    await expect(deliverEvent(message, options(neverResolve))).resolves.toBe(25_000);
    expect(resolved).toEqual([]);
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('records a due attempt to a name now resolving to the metadata service as refused, without connecting, and schedules the next', async () => {
    // Prepare
    documents.on(GetCommand).resolves({ Item: stored({ next_attempt_at: new Date(NOW - 1).toISOString() }) });
    const metadata: Resolver = async () => [{ address: '169.254.169.254', family: 4 }];

    // Act
    const wait = await deliverEvent(message, options(metadata));

    // Assert
    expect(wait).toBe(2_000);
    const update = documents.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.ExpressionAttributeValues?.[':record']).toMatchObject({
      status: 'pending',
      attempts: 2,
      last_status_code: null,
      last_error: 'the URL points at an address webhooks may not reach',
    });
    expect(update.ExpressionAttributeValues?.[':attempts']).toBe(1);
  });

  it("gives up on a name that does not resolve within the attempt's timeout, as on a receiver that does not answer", async () => {
    documents.on(GetCommand).resolves({ Item: stored({ next_attempt_at: new Date(NOW - 1).toISOString() }) });
    const silent: Resolver = () => new Promise(() => undefined);
    await expect(deliverEvent(message, options(silent))).resolves.toBe(2_000);
    expect(documents.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues?.[':record']).toMatchObject({
      last_error: 'the host name did not resolve',
      attempts: 2,
    });
  });

  it('dead-letters a failed attempt whose next wait would end past the window', async () => {
    documents.on(GetCommand).resolves({ Item: { ...stored({ next_attempt_at: new Date(NOW).toISOString(), attempts: 5 }), firstAttemptAt: NOW - 55_000 } });
    const wait = await deliverEvent(
      message,
      options(async () => [{ address: '10.0.0.1', family: 4 }]),
    );
    expect(wait).toBeUndefined();
    expect(documents.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues?.[':record']).toMatchObject({
      status: 'dead_lettered',
      attempts: 6,
      next_attempt_at: null,
    });
  });

  it('delivers to no webhook that is not subscribed to the event type', async () => {
    documents.on(QueryCommand).resolves({ Items: [{ ...webhook, record: { ...webhook.record, event_types: ['IMPORT_COMPLETED'] } }] });
    await expect(deliverEvent(message, options(neverResolve))).resolves.toBeUndefined();
    expect(documents.commandCalls(PutCommand)).toHaveLength(0);
  });
});
