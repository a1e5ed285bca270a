import { forwardChanges } from '../../../../../lambdas/functions/forward-changes/forward.js';
import { priceChange, priceChangeItem } from '../../../fixtures/price-changes.js';
import type { PriceChange } from '../../../../../lambdas/domain/records.js';
import { webhookEventMessage, type WebhookEventMessage } from '../../../../../lambdas/events/webhook-events.js';
import { logger } from '../../../../../lambdas/observability/logger.js';
import type { QueueMessage, QueueSender } from '../../../../../lambdas/queue/sender.js';
import { removedRecord, streamRecord } from '../../../fixtures/market-events.js';

/**
 * PRICE_CHANGE_APPLIED and PRICE_CHANGE_FAILED: the forwarder announces a price change whose
 * canonical item's status moved to `applied` or `failed`, and nothing else about it.
 */

const SENT_AT = '2026-11-22T10:16:00.000Z';
const SETTLED_AT = '2026-11-22T10:17:00.000Z';
const sent = priceChange({ status: 'sent', sent_price: 48.5, sent_at: SENT_AT, updated_at: SENT_AT });
const applied = priceChange({ status: 'applied', sent_price: 48.5, sent_at: SENT_AT, applied_at: SETTLED_AT, updated_at: SETTLED_AT });
const failed = priceChange({
  status: 'failed',
  status_reason: 'The marketplace refused the price.',
  sent_price: 48.5,
  sent_at: SENT_AT,
  updated_at: SETTLED_AT,
});

const item = priceChangeItem;

const webhooksQueue = () => {
  const sent: QueueMessage[] = [];
  const sender: QueueSender = { send: async (messages) => void sent.push(...messages) };
  const forward = forwardChanges({ lists: { send: async () => undefined }, repricing: { send: async () => undefined }, webhooks: sender });
  const events = (): { group: string; event: WebhookEventMessage }[] =>
    sent.map((message) => ({ group: message.groupId, event: webhookEventMessage.parse(JSON.parse(message.body)) }));
  return { forward, events };
};

beforeEach(() => logger.setLogLevel('SILENT'));

describe('PRICE_CHANGE_APPLIED and PRICE_CHANGE_FAILED in the webhooks route of the forwarder', () => {
  it('announces a price change that moved to applied once, with its record, in its repricer group', async () => {
    // Prepare
    const queue = webhooksQueue();

    // Act
    const result = await queue.forward({ Records: [streamRecord(item('c1', applied), item('c1', sent, { batchId: '88' }))] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(queue.events()).toEqual([
      {
        group: 'c1#R7',
        event: {
          clientId: 'c1',
          eventId: `PRICE_CHANGE_APPLIED-41-${SETTLED_AT}`,
          eventType: 'PRICE_CHANGE_APPLIED',
          eventTimestamp: SETTLED_AT,
          data: applied,
        },
      },
    ]);
  });

  it('announces a price change that moved to failed, with its reason', async () => {
    // Prepare
    const queue = webhooksQueue();

    // Act
    await queue.forward({ Records: [streamRecord(item('c1', failed), item('c1', sent))] });

    // Assert
    expect(queue.events()).toEqual([
      {
        group: 'c1#R7',
        event: { clientId: 'c1', eventId: `PRICE_CHANGE_FAILED-41-${SETTLED_AT}`, eventType: 'PRICE_CHANGE_FAILED', eventTimestamp: SETTLED_AT, data: failed },
      },
    ]);
    expect((queue.events()[0]!.event.data as PriceChange).status_reason).toBe('The marketplace refused the price.');
  });

  it('announces a move to failed whatever status it left (here suggested)', async () => {
    // Prepare
    const queue = webhooksQueue();
    const suggested = priceChange({ status: 'suggested' });

    // Act
    await queue.forward({ Records: [streamRecord(item('c1', failed), item('c1', suggested))] });

    // Assert
    expect(queue.events().map(({ event }) => event.eventType)).toEqual(['PRICE_CHANGE_FAILED']);
  });

  it.each([
    ['a modify that keeps the status (the sender recording its batch)', () => streamRecord(item('c1', sent, { batchId: '88' }), item('c1', sent))],
    [
      'a modify of an applied record that keeps it applied',
      () => streamRecord(item('c1', { ...applied, updated_at: '2026-11-22T11:00:00.000Z' }), item('c1', applied)),
    ],
    ['a move to another status (pending to sent)', () => streamRecord(item('c1', sent), item('c1', priceChange()))],
    ['a move to superseded', () => streamRecord(item('c1', priceChange({ status: 'superseded', updated_at: SETTLED_AT })), item('c1', priceChange()))],
    ['the expiry of an applied record (REMOVE)', () => removedRecord(item('c1', applied))],
  ])('announces nothing for %s', async (_case, record) => {
    // Prepare
    const queue = webhooksQueue();

    // Act
    const result = await queue.forward({ Records: [record()] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(queue.events()).toEqual([]);
  });

  it('announces a record written applied from the start (INSERT) only as a new price change', async () => {
    // Prepare
    const queue = webhooksQueue();

    // Act
    await queue.forward({ Records: [streamRecord(item('c1', applied), undefined)] });

    // Assert
    expect(queue.events().map(({ event }) => event.eventType)).toEqual(['REPRICER_PRICE_CHANGED']);
  });

  it('gives the same stream record read twice the same event id', async () => {
    // Prepare
    const queue = webhooksQueue();
    const record = streamRecord(item('c1', applied), item('c1', sent));

    // Act
    await queue.forward({ Records: [record] });
    await queue.forward({ Records: [record] });

    // Assert
    const [first, second] = queue.events();
    expect(queue.events()).toHaveLength(2);
    expect(second!.event.eventId).toBe(first!.event.eventId);
  });

  it('announces a price change created and settled in one batch first as new, then as settled, in one group', async () => {
    // Prepare
    const queue = webhooksQueue();
    const other = priceChange({ id: 40, product_code: 'P-2' });

    // Act
    await queue.forward({
      Records: [
        streamRecord(item('c1', priceChange()), undefined),
        streamRecord(item('c1', sent), item('c1', priceChange())),
        streamRecord(item('c1', applied), item('c1', sent)),
        streamRecord(item('c1', other), undefined),
      ],
    });

    // Assert
    expect(queue.events().map(({ group, event }) => [group, event.eventId])).toEqual([
      ['c1#R7', 'REPRICER_PRICE_CHANGED-40'],
      ['c1#R7', 'REPRICER_PRICE_CHANGED-41'],
      ['c1#R7', `PRICE_CHANGE_APPLIED-41-${SETTLED_AT}`],
    ]);
  });

  it('keeps tenants apart: each event in its own tenant, and its group', async () => {
    // Prepare
    const queue = webhooksQueue();

    // Act
    await queue.forward({ Records: [streamRecord(item('c1', applied), item('c1', sent)), streamRecord(item('c2', failed), item('c2', sent))] });

    // Assert
    expect(
      queue
        .events()
        .map(({ group, event }) => [group, event.clientId, event.eventType])
        .sort(),
    ).toEqual([
      ['c1#R7', 'c1', 'PRICE_CHANGE_APPLIED'],
      ['c2#R7', 'c2', 'PRICE_CHANGE_FAILED'],
    ]);
  });
});
