import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { forwardChanges } from '../../../../../lambdas/functions/forward-changes/forward.js';
import { priceChangeKey } from '../../../../../lambdas/data/table/keys.js';
import { canonicalPriceChange, EXPLANATION_ATTRIBUTE, PRICE_CHANGE_SCHEMA_VERSION } from '../../../../../lambdas/data/price-changes/list.js';
import { explainTarget } from '../../../../../lambdas/domain/explain-target.js';
import type { PriceChange } from '../../../../../lambdas/domain/records.js';
import { webhookEventMessage } from '../../../../../lambdas/events/webhook-events.js';
import { logger } from '../../../../../lambdas/observability/logger.js';
import type { QueueMessage, QueueSender } from '../../../../../lambdas/queue/sender.js';

type Image = Record<string, AttributeValue>;
const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as Image;

const priceChange = (id: number, repricerId: number): PriceChange => ({
  id,
  uid: '9b0e6c2d-1f4a-4e8b-a3c5-7d2f1e0b9a61',
  repricer_id: repricerId,
  offer_id: 'OFR-1',
  product_code: 'P-1',
  connector: 'amazon',
  old_price: 50,
  new_price: 49 - id / 100,
  reason: 'undercut',
  lowest_competitor_price: 50,
  competitor_offer_id: 'OFR-2',
  status: 'suggested',
  status_reason: null,
  sent_price: null,
  sent_at: null,
  applied_at: null,
  explanation: null,
  created_at: `2026-11-22T10:15:30.${String(id).padStart(3, '0')}Z`,
  updated_at: `2026-11-22T10:15:30.${String(id).padStart(3, '0')}Z`,
});

let sequence = 0;
const streamRecord = (clientId: string, change: PriceChange, kind: 'INSERT' | 'MODIFY' | 'REMOVE' = 'INSERT'): DynamoDBRecord => {
  const item = {
    ...priceChangeKey(clientId, change.product_code, change.repricer_id, change.offer_id, change.id),
    entity: 'priceChange',
    sv: PRICE_CHANGE_SCHEMA_VERSION,
    record: change,
  };
  const n = String(++sequence);
  return {
    eventID: `event-${n}`,
    eventName: kind,
    dynamodb: {
      Keys: image({ pk: item.pk, sk: item.sk }),
      ...(kind === 'REMOVE' ? {} : { NewImage: image(item) }),
      ...(kind === 'INSERT' ? {} : { OldImage: image(item) }),
      SequenceNumber: n,
    },
  };
};

const recording = () => {
  const sent: QueueMessage[] = [];
  const sender: QueueSender = { send: async (messages) => void sent.push(...messages) };
  return { sender, sent };
};

beforeEach(() => logger.setLogLevel('SILENT'));

describe('the webhooks route of the forwarder', () => {
  it('sends each new price change as one event, in id order, grouped by tenant and repricer', async () => {
    // Prepare
    const webhooks = recording();
    const forward = forwardChanges({ lists: recording().sender, repricing: recording().sender, webhooks: webhooks.sender });

    // Act
    await forward({
      Records: [
        streamRecord('c1', priceChange(3, 7)),
        streamRecord('c1', priceChange(1, 7)),
        streamRecord('c1', priceChange(2, 8)),
        streamRecord('c2', priceChange(4, 7)),
      ],
    });

    // Assert
    const sent = webhooks.sent.map((message) => ({ group: message.groupId, body: webhookEventMessage.parse(JSON.parse(message.body)) }));
    expect(sent.map(({ group, body }) => [group, body.clientId, body.eventId])).toEqual([
      ['c1#R7', 'c1', 'REPRICER_PRICE_CHANGED-1'],
      ['c1#R8', 'c1', 'REPRICER_PRICE_CHANGED-2'],
      ['c1#R7', 'c1', 'REPRICER_PRICE_CHANGED-3'],
      ['c2#R7', 'c2', 'REPRICER_PRICE_CHANGED-4'],
    ]);
    expect(sent[0]!.body).toMatchObject({ eventType: 'REPRICER_PRICE_CHANGED', eventTimestamp: priceChange(1, 7).created_at, data: priceChange(1, 7) });
  });

  it('carries the explanation the canonical item keeps compressed beside its record', async () => {
    // Prepare
    const webhooks = recording();
    const forward = forwardChanges({ lists: recording().sender, repricing: recording().sender, webhooks: webhooks.sender });
    const explanation = explainTarget(
      { enabled: true, min_price: 30, preferred_price: 60, connector: 'amazon', buybox_approach: 'cheapest', repricer_approach: 'fixed' },
      [{ offer_id: 'OFR-2', offer_price: 50, offer_status: 'buyable', connector: 'amazon', own: false }],
      1,
    );
    const change = { ...priceChange(5, 7), new_price: 49, explanation };
    const record = streamRecord('c1', change);
    const item = { pk: 'P', sk: 'S', ...canonicalPriceChange({ entity: 'priceChange', sv: PRICE_CHANGE_SCHEMA_VERSION, record: change }) };
    record.dynamodb!.NewImage = image(item);

    // Act
    await forward({ Records: [record] });

    // Assert
    expect(item).not.toHaveProperty('record.explanation');
    const [sent] = webhooks.sent.map((message) => webhookEventMessage.parse(JSON.parse(message.body)));
    expect(sent).toMatchObject({ eventType: 'REPRICER_PRICE_CHANGED', data: { explanation: { final_price: 49, reason: 'undercut' } } });
    expect((sent!.data as PriceChange).explanation).toEqual(explanation);
  });

  it('reads the explanation from a stream image that carries it as base64 text, as Lambda delivers binary attributes', async () => {
    // Prepare
    const webhooks = recording();
    const forward = forwardChanges({ lists: recording().sender, repricing: recording().sender, webhooks: webhooks.sender });
    const explanation = explainTarget(
      { enabled: true, min_price: 30, preferred_price: 60, connector: 'amazon', buybox_approach: 'match', repricer_approach: 'fixed' },
      [{ offer_id: 'OFR-2', offer_price: 50, offer_status: 'buyable', connector: 'amazon', own: false }],
      1,
    );
    const change = { ...priceChange(6, 7), new_price: 50, reason: 'match' as const, explanation };
    const record = streamRecord('c1', change);
    const item = { pk: 'P', sk: 'S', ...canonicalPriceChange({ entity: 'priceChange', sv: PRICE_CHANGE_SCHEMA_VERSION, record: change }) };
    const marshalled = image(item) as Record<string, { B?: unknown }>;
    const bytes = marshalled[EXPLANATION_ATTRIBUTE]!.B as Uint8Array;
    record.dynamodb!.NewImage = { ...marshalled, [EXPLANATION_ATTRIBUTE]: { B: Buffer.from(bytes).toString('base64') } } as Record<string, AttributeValue>;

    // Act
    await forward({ Records: [record] });

    // Assert
    const [sent] = webhooks.sent.map((message) => webhookEventMessage.parse(JSON.parse(message.body)));
    expect((sent!.data as PriceChange).explanation).toEqual(explanation);
  });

  it('announces nothing for a price change that is modified or expires', async () => {
    // Prepare
    const webhooks = recording();
    const forward = forwardChanges({ lists: recording().sender, repricing: recording().sender, webhooks: webhooks.sender });

    // Act
    await forward({ Records: [streamRecord('c1', priceChange(1, 7), 'MODIFY'), streamRecord('c1', priceChange(2, 7), 'REMOVE')] });

    // Assert
    expect(webhooks.sent).toEqual([]);
  });
});
