import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { LOCAL_SECRETS_KEY_ENV, resetKeyProvider } from '../../../../lambdas/crypto/key-provider.js';
import { deliverEvent, type DeliveryOptions } from '../../../../lambdas/functions/deliver-webhooks/deliver.js';
import { WEBHOOK_EVENT_BODIES } from '../../../../lambdas/domain/webhooks.js';
import { buyboxChangedMessage } from '../../../../lambdas/events/webhook-events.js';
import { sealWebhookSecret } from '../../../../lambdas/webhooks/secrets.js';
import { verifyWithExample, type ReceivedDelivery } from '../../../support/signature-example.js';
import { startReceiver, type WebhookReceiver } from '../../../support/webhook-receiver.js';

/**
 * The verification code of docs/webhooks.md, exactly as a reader copies it, run in its own Node
 * process against deliveries the worker made to a receiver on 127.0.0.1: it accepts each attempt
 * of an event (one id, each attempt's own time), and refuses a replay and a tampered body.
 */
const documents = mockClient(DynamoDBDocumentClient);
const SECRET = `whsec_${'5f0c'.repeat(16)}`;
const message = buyboxChangedMessage('c1', {
  id: 9,
  product_code: 'SKU-1',
  connector: 'takealot',
  fields: { offer_id: 'OF-9', offer_price: 449, winning: true, winning_price: 449, total_competitors: 4 },
  updated_at: '2026-11-22T10:05:00.000Z',
});

let receiver: WebhookReceiver;
let stored: { body?: string; record?: Record<string, unknown>; firstAttemptAt?: number } = {};

beforeAll(async () => {
  process.env.TABLE_NAME = 'verify-example-test';
  process.env.WEBHOOK_ALLOW_LOCAL_HTTP = 'true';
  process.env[LOCAL_SECRETS_KEY_ENV] = '7'.repeat(64);
  resetKeyProvider();
  // The first attempt fails, so the worker tries again.
  receiver = await startReceiver((n) => (n === 0 ? 500 : 200));
  const webhook = {
    entity: 'webhook',
    sealedSecret: await sealWebhookSecret('c1', SECRET),
    record: { id: 4, uid: '2c7d4f8e-5a1b-4c3d-9e8f-0a1b2c3d4e5f', url: receiver.url, event_types: ['BUYBOX_WON'], created_at: '2026-11-22T09:00:00.000Z' },
  };
  documents.on(QueryCommand).resolves({ Items: [webhook] });
  // The delivery item as the worker writes it, read back as the table would answer.
  documents.on(PutCommand).callsFake((input: { Item: typeof stored & { firstAttemptAt: number | null } }) => {
    if (stored.body !== undefined) throw Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' });
    stored = { body: input.Item.body, record: input.Item.record as Record<string, unknown> };
    return {};
  });
  documents.on(UpdateCommand).callsFake((input: { ExpressionAttributeValues: Record<string, unknown> }) => {
    stored = {
      ...stored,
      record: input.ExpressionAttributeValues[':record'] as Record<string, unknown>,
      firstAttemptAt: input.ExpressionAttributeValues[':first'] as number,
    };
    return {};
  });
  documents.on(GetCommand).callsFake(() => ({ Item: { entity: 'webhookDelivery', ...stored } }));
});

afterAll(async () => {
  await receiver.close();
  documents.restore();
  delete process.env.WEBHOOK_ALLOW_LOCAL_HTTP;
  delete process.env[LOCAL_SECRETS_KEY_ENV];
  resetKeyProvider();
});

const options = (now: number): DeliveryOptions => ({
  resolve: async () => [{ address: '127.0.0.1', family: 4 }],
  schedule: { baseDelayMs: 1_000, maxDelayMs: 1_000, windowMs: 3_600_000 },
  timeoutMs: 10_000,
  now: () => now,
});

describe("docs/webhooks.md's verifyWebhook", () => {
  it('accepts every attempt of a delivery the worker made, and refuses one with its time or body changed', async () => {
    // Prepare: attempts 90 and 30 seconds ago, the first answered 500, the second 200
    const start = Date.now();
    await expect(deliverEvent(message, options(start - 90_000))).resolves.toBe(1_000);
    await expect(deliverEvent(message, options(start - 30_000))).resolves.toBeUndefined();
    const [first, second] = receiver.received.map(({ body, headers }): ReceivedDelivery => ({ body, headers }));

    // Act
    // A captured attempt given a fresh time: the time is signed.
    const restamped = { ...first!, headers: { ...first!.headers, 'webhook-timestamp': String(Math.floor(start / 1000)) } };
    const tampered = { ...second!, body: second!.body.replace('"offer_price":449', '"offer_price":1') };
    const results = verifyWithExample(SECRET, [first!, second!, restamped, tampered]);

    // Assert
    expect(results).toEqual([true, true, false, false]);
    expect(tampered.body).not.toBe(second!.body);
    // One event: the same id on both attempts, in the header and the body; each attempt's own time.
    expect([first!.headers['webhook-id'], second!.headers['webhook-id']]).toEqual([message.eventId, message.eventId]);
    expect([first!.headers['webhook-timestamp'], second!.headers['webhook-timestamp']]).toEqual([
      String(Math.floor((start - 90_000) / 1000)),
      String(Math.floor((start - 30_000) / 1000)),
    ]);
    expect(second!.body).toBe(first!.body);
    expect(WEBHOOK_EVENT_BODIES.BUYBOX_WON.parse(JSON.parse(first!.body))).toMatchObject({ event_id: message.eventId, event_type: 'BUYBOX_WON' });
  });

  it('refuses a delivery the worker made more than five minutes ago (a captured request replayed now)', async () => {
    // Prepare
    receiver.received.length = 0;
    stored = {};
    const sixMinutesAgo = Date.now() - 360_000;
    await deliverEvent(message, options(sixMinutesAgo));

    // Act
    const results = verifyWithExample(SECRET, receiver.received);

    // Assert
    expect(receiver.received).toHaveLength(1);
    expect(results).toEqual([false]);
  });
});
