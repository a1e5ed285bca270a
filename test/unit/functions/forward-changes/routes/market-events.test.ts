import { forwardChanges } from '../../../../../lambdas/functions/forward-changes/forward.js';
import { marketSyncMessage } from '../../../../../lambdas/events/market-sync.js';
import { priceSenderMessage } from '../../../../../lambdas/events/price-sender.js';
import { webhookEventMessage } from '../../../../../lambdas/events/webhook-events.js';
import { logger } from '../../../../../lambdas/observability/logger.js';
import type { QueueMessage, QueueSender } from '../../../../../lambdas/queue/sender.js';
import { CONNECTION_UID, connection, connectionItem, marketplaceEvent, marketplaceEventItem, streamRecord } from '../../../fixtures/market-events.js';

const recording = () => {
  const sent: QueueMessage[] = [];
  const sender: QueueSender = { send: async (messages) => void sent.push(...messages) };
  return { sender, sent };
};

const senders = () => {
  const [lists, repricing, imports, webhooks, marketSync, prices] = [recording(), recording(), recording(), recording(), recording(), recording()];
  return {
    webhooks,
    marketSync,
    prices,
    all: {
      lists: lists.sender,
      repricing: repricing.sender,
      imports: imports.sender,
      webhooks: webhooks.sender,
      marketSync: marketSync.sender,
      prices: prices.sender,
    },
  };
};

beforeEach(() => logger.setLogLevel('SILENT'));

describe('the marketSync route of the forwarder', () => {
  it('asks for the next look at the offer an Offer Updated or Offer Created event names, in its connection group', async () => {
    // Prepare
    const queues = senders();
    const updated = marketplaceEvent();
    const created = marketplaceEvent({ deliveryId: 'd-2', eventType: 'offer_created', offerId: '777' });

    // Act
    const result = await forwardChanges(queues.all)({
      Records: [streamRecord(marketplaceEventItem('c1', updated), undefined), streamRecord(marketplaceEventItem('c1', created), undefined)],
    });

    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(queues.marketSync.sent.map((message) => marketSyncMessage.parse(JSON.parse(message.body)))).toEqual([
      { kind: 'offer', uid: CONNECTION_UID, offerId: '123456', deliveryId: updated.deliveryId },
      { kind: 'offer', uid: CONNECTION_UID, offerId: '777', deliveryId: 'd-2' },
    ]);
    expect(queues.marketSync.sent.map((message) => message.groupId)).toEqual([CONNECTION_UID, CONNECTION_UID]);
    expect(queues.webhooks.sent).toEqual([]);
  });

  it.each([
    [
      "a Batch Completed event (the price sender's: forward-prices.test.ts)",
      marketplaceEvent({ eventType: 'batch_completed', offerId: undefined, batchId: '88', connector: 'takealot' }),
    ],
    ['an Offer Updated event that names no offer', marketplaceEvent({ offerId: undefined })],
    ['an event of another type', marketplaceEvent({ eventType: 'other' })],
  ])('sends nothing for %s', async (_case, event) => {
    // Prepare
    const queues = senders();

    // Act
    const result = await forwardChanges(queues.all)({ Records: [streamRecord(marketplaceEventItem('c1', event), undefined)] });

    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(queues.marketSync.sent).toEqual([]);
  });
});

describe('CONNECTION_STATUS_CHANGED in the webhooks route of the forwarder', () => {
  const connected = connectionItem('c1', connection());
  const refused = connectionItem(
    'c1',
    connection({ status: 'unauthorized', last_error: 'The marketplace refused the key.', updated_at: '2026-11-22T10:00:00.000Z' }),
  );

  it('announces a status change once, with the connection, both statuses and the error, grouped by connection', async () => {
    // Prepare
    const queues = senders();

    // Act
    const result = await forwardChanges(queues.all)({ Records: [streamRecord(refused, connected)] });

    // Assess
    expect(result.batchItemFailures).toEqual([]);
    expect(queues.webhooks.sent).toHaveLength(1);
    expect(webhookEventMessage.parse(JSON.parse(queues.webhooks.sent[0]!.body))).toEqual({
      clientId: 'c1',
      eventId: `CONNECTION_STATUS_CHANGED-${CONNECTION_UID}-2026-11-22T10:00:00.000Z-unauthorized`,
      eventType: 'CONNECTION_STATUS_CHANGED',
      eventTimestamp: '2026-11-22T10:00:00.000Z',
      data: {
        connector: 'takealot',
        uid: CONNECTION_UID,
        status: 'unauthorized',
        previous_status: 'connected',
        last_error: 'The marketplace refused the key.',
        changed_at: '2026-11-22T10:00:00.000Z',
      },
    });
    expect(queues.webhooks.sent[0]!.groupId).toBe(`c1#C${CONNECTION_UID}`);
    expect(queues.marketSync.sent).toEqual([]);
    // The sender looks at the connection too (forward-prices.test.ts).
    expect(queues.prices.sent.map((message) => priceSenderMessage.parse(JSON.parse(message.body)))).toEqual([
      { kind: 'sweep', clientId: 'c1', connector: 'takealot', reason: 'connection' },
    ]);
  });

  it('gives the same change read twice the same event id, and two changes two, in the order made', async () => {
    // Prepare
    const queues = senders();
    const reconnected = connectionItem('c1', connection({ updated_at: '2026-11-22T11:00:00.000Z' }));

    // Act
    await forwardChanges(queues.all)({ Records: [streamRecord(refused, connected), streamRecord(reconnected, refused)] });
    await forwardChanges(queues.all)({ Records: [streamRecord(refused, connected)] });

    // Assess
    const events = queues.webhooks.sent.map((message) => webhookEventMessage.parse(JSON.parse(message.body)));
    expect(events.map((event) => (event.data as { status: string }).status)).toEqual(['unauthorized', 'connected', 'unauthorized']);
    expect(events[2]!.eventId).toBe(events[0]!.eventId);
    expect(events[1]!.eventId).not.toBe(events[0]!.eventId);
  });

  it('announces nothing for a new connection or a write that kept the status', async () => {
    // Prepare
    const queues = senders();
    const synced = connectionItem('c1', connection({ offers_synced: 12, last_sync_at: '2026-11-22T10:00:00.000Z' }));

    // Act
    await forwardChanges(queues.all)({ Records: [streamRecord(connected, undefined), streamRecord(synced, connected)] });

    // Assess
    expect(queues.webhooks.sent).toEqual([]);
  });
});
