import { forwardChanges } from '../../../../../lambdas/functions/forward-changes/forward.js';
import { priceChange, priceChangeItem } from '../../../fixtures/price-changes.js';
import { priceSenderGroup, priceSenderMessage } from '../../../../../lambdas/events/price-sender.js';
import { logger } from '../../../../../lambdas/observability/logger.js';
import type { QueueMessage, QueueSender } from '../../../../../lambdas/queue/sender.js';
import { connection, connectionItem, marketplaceEvent, marketplaceEventItem, removedRecord, streamRecord } from '../../../fixtures/market-events.js';

/**
 * The prices route of the forwarder: what reaches the price sender's queue, in the connection's
 * group. Price changes that just became `pending`, a connection whose mode or status moved or
 * that was deleted (a sweep), and a batch the marketplace says completed; nothing else.
 */
const MOVED_AT = '2026-11-22T10:16:00.000Z';

const item = priceChangeItem;

const recording = () => {
  const sent: QueueMessage[] = [];
  const sender: QueueSender = { send: async (messages) => void sent.push(...messages) };
  return { sender, sent };
};

/**
 * Every queue the forwarder sends to: the prices queue is read; the lists queue shows that a
 * price change was read at all (so a silent prices queue is the route's choice, not a record
 * that failed to parse); the others only take what they get.
 */
const queues = () => {
  const [prices, lists] = [recording(), recording()];
  const elsewhere: QueueSender = { send: async () => undefined };
  const forward = forwardChanges({
    lists: lists.sender,
    repricing: elsewhere,
    imports: elsewhere,
    webhooks: elsewhere,
    marketSync: elsewhere,
    prices: prices.sender,
  });
  const messages = () => prices.sent.map((message) => ({ group: message.groupId, body: priceSenderMessage.parse(JSON.parse(message.body)) }));
  return { forward, messages, listsHeard: () => lists.sent.length };
};

beforeEach(() => logger.setLogLevel('SILENT'));

describe('the prices route of the forwarder: price changes', () => {
  it("sends a price change created pending (a live decision) as a changes message in its connection's group", async () => {
    // Prepare
    const prices = queues();

    // Act
    const result = await prices.forward({ Records: [streamRecord(item('c1', priceChange()), undefined)] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(prices.messages()).toEqual([
      {
        group: priceSenderGroup('c1', 'takealot'),
        body: { kind: 'changes', clientId: 'c1', connector: 'takealot', changes: [{ productCode: 'P-1', sk: 'PC#7#OFR-1#00000041' }] },
      },
    ]);
  });

  it('sends nothing for a price change created suggested (a connection in suggest mode)', async () => {
    // Prepare
    const prices = queues();

    // Act
    const result = await prices.forward({ Records: [streamRecord(item('c1', priceChange({ status: 'suggested' })), undefined)] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(prices.listsHeard()).toBe(1);
    expect(prices.messages()).toEqual([]);
  });

  it('sends a suggestion the client applied (suggested to pending) once', async () => {
    // Prepare
    const prices = queues();
    const suggested = item('c1', priceChange({ status: 'suggested' }));
    const applied = item('c1', priceChange({ status: 'pending', updated_at: MOVED_AT }));

    // Act
    await prices.forward({ Records: [streamRecord(applied, suggested)] });

    // Assert
    expect(prices.messages()).toEqual([
      {
        group: priceSenderGroup('c1', 'takealot'),
        body: { kind: 'changes', clientId: 'c1', connector: 'takealot', changes: [{ productCode: 'P-1', sk: 'PC#7#OFR-1#00000041' }] },
      },
    ]);
  });

  it.each([
    ['pending to sent (the sender pushed it)', priceChange(), priceChange({ status: 'sent', sent_price: 48.5, sent_at: MOVED_AT, updated_at: MOVED_AT })],
    [
      'sent to applied (the marketplace confirmed it)',
      priceChange({ status: 'sent', sent_price: 48.5, sent_at: MOVED_AT, updated_at: MOVED_AT }),
      priceChange({ status: 'applied', sent_price: 48.5, sent_at: MOVED_AT, applied_at: MOVED_AT, updated_at: MOVED_AT }),
    ],
    ['pending to superseded (a newer decision for the offer)', priceChange(), priceChange({ status: 'superseded', updated_at: MOVED_AT })],
    // The sender's own bookkeeping beside a pending record (a retry that is due later) is no new work.
    ['a pending change rewritten pending', priceChange(), priceChange({ status_reason: 'The marketplace was unavailable.', updated_at: MOVED_AT })],
  ])('sends nothing for %s', async (_case, before, after) => {
    // Prepare
    const prices = queues();

    // Act
    const result = await prices.forward({ Records: [streamRecord(item('c1', after, { retryAt: MOVED_AT }), item('c1', before))] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(prices.listsHeard()).toBe(1);
    expect(prices.messages()).toEqual([]);
  });

  it('sends nothing when a pending price change expires or is removed', async () => {
    // Prepare
    const prices = queues();

    // Act
    await prices.forward({ Records: [removedRecord(item('c1', priceChange()))] });

    // Assert
    expect(prices.listsHeard()).toBe(1);
    expect(prices.messages()).toEqual([]);
  });

  it("gathers one tenant's pending changes per connection into one message, each in its connection's group, and keeps tenants apart", async () => {
    // Prepare
    const prices = queues();

    // Act
    await prices.forward({
      Records: [
        streamRecord(item('c1', priceChange({ id: 41 })), undefined),
        streamRecord(item('c1', priceChange({ id: 42, product_code: 'P-2' })), undefined),
        streamRecord(item('c1', priceChange({ id: 43, connector: 'amazon' })), undefined),
        streamRecord(item('c2', priceChange({ id: 44 })), undefined),
      ],
    });

    // Assert
    const messages = prices.messages();
    expect(messages).toHaveLength(3);
    expect(messages).toEqual(
      expect.arrayContaining([
        {
          group: priceSenderGroup('c1', 'takealot'),
          body: {
            kind: 'changes',
            clientId: 'c1',
            connector: 'takealot',
            changes: [
              { productCode: 'P-1', sk: 'PC#7#OFR-1#00000041' },
              { productCode: 'P-2', sk: 'PC#7#OFR-1#00000042' },
            ],
          },
        },
        {
          group: priceSenderGroup('c1', 'amazon'),
          body: { kind: 'changes', clientId: 'c1', connector: 'amazon', changes: [{ productCode: 'P-1', sk: 'PC#7#OFR-1#00000043' }] },
        },
        {
          group: priceSenderGroup('c2', 'takealot'),
          body: { kind: 'changes', clientId: 'c2', connector: 'takealot', changes: [{ productCode: 'P-1', sk: 'PC#7#OFR-1#00000044' }] },
        },
      ]),
    );
    expect(new Set(messages.map(({ group }) => group)).size).toBe(3);
  });
});

describe('the prices route of the forwarder: connections', () => {
  const live = connectionItem('c1', connection());
  const sweep = { group: priceSenderGroup('c1', 'takealot'), body: { kind: 'sweep', clientId: 'c1', connector: 'takealot', reason: 'connection' } };

  it.each([
    ['its mode moved to suggest (the kill switch)', streamRecord(connectionItem('c1', connection({ mode: 'suggest', updated_at: MOVED_AT })), live)],
    ['its mode moved to live', streamRecord(live, connectionItem('c1', connection({ mode: 'suggest' })))],
    ['it was deleted', removedRecord(live)],
    ['the breaker paused it', streamRecord(connectionItem('c1', connection({ status: 'paused', updated_at: MOVED_AT })), live)],
    ['it was resumed', streamRecord(live, connectionItem('c1', connection({ status: 'paused' })))],
  ])('asks for one sweep of the connection, in its group, when %s', async (_case, record) => {
    // Prepare
    const prices = queues();

    // Act
    const result = await prices.forward({ Records: [record] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(prices.messages()).toEqual([sweep]);
  });

  it('asks for one sweep when the connection moved several times in one batch', async () => {
    // Prepare
    const prices = queues();
    const paused = connectionItem('c1', connection({ status: 'paused', updated_at: MOVED_AT }));
    const suggesting = connectionItem('c1', connection({ status: 'paused', mode: 'suggest', updated_at: MOVED_AT }));

    // Act
    await prices.forward({ Records: [streamRecord(paused, live), streamRecord(suggesting, paused)] });

    // Assert
    expect(prices.messages()).toEqual([sweep]);
  });

  it.each([
    ['a new connection', streamRecord(live, undefined)],
    [
      'a write that kept its mode and status (a sync counting offers)',
      streamRecord(connectionItem('c1', connection({ offers_synced: 12, updated_at: MOVED_AT })), live),
    ],
  ])('sends nothing for %s', async (_case, record) => {
    // Prepare
    const prices = queues();

    // Act
    await prices.forward({ Records: [record] });

    // Assert
    expect(prices.messages()).toEqual([]);
  });
});

describe('the prices route of the forwarder: marketplace events', () => {
  it('sends a Batch Completed event naming its connector as a batch message, in the connection group', async () => {
    // Prepare
    const prices = queues();
    const event = marketplaceEvent({ eventType: 'batch_completed', offerId: undefined, batchId: '88', connector: 'takealot' });

    // Act
    const result = await prices.forward({ Records: [streamRecord(marketplaceEventItem('c1', event), undefined)] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(prices.messages()).toEqual([
      { group: priceSenderGroup('c1', 'takealot'), body: { kind: 'batch', clientId: 'c1', connector: 'takealot', batchId: '88' } },
    ]);
  });

  it.each([
    ['a Batch Completed event recorded without its connector', marketplaceEvent({ eventType: 'batch_completed', offerId: undefined, batchId: '88' })],
    ['a Batch Completed event that names no batch', marketplaceEvent({ eventType: 'batch_completed', offerId: undefined, connector: 'takealot' })],
    ['an Offer Updated event', marketplaceEvent({ connector: 'takealot' })],
  ])('sends nothing for %s', async (_case, event) => {
    // Prepare
    const prices = queues();

    // Act
    await prices.forward({ Records: [streamRecord(marketplaceEventItem('c1', event), undefined)] });

    // Assert
    expect(prices.messages()).toEqual([]);
  });
});
