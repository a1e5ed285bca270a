import { forwardChanges } from '../../../../../lambdas/functions/forward-changes/forward.js';
import type { StoredOffer } from '../../../../../lambdas/data/offers/list.js';
import type { OfferFields } from '../../../../../lambdas/domain/records.js';
import { webhookEventMessage, type WebhookEventMessage } from '../../../../../lambdas/events/webhook-events.js';
import { logger } from '../../../../../lambdas/observability/logger.js';
import type { QueueMessage, QueueSender } from '../../../../../lambdas/queue/sender.js';
import { offerItem, storedOffer } from '../../../data/fixtures.js';
import { removedRecord, streamRecord } from '../../../fixtures/market-events.js';

/**
 * BUYBOX_WON and BUYBOX_LOST: the forwarder announces the client's own offer whose `winning`
 * flipped on a modify, and nothing for other sellers' offers, new or removed offers, or a
 * modify that keeps `winning`.
 */
const FIRST = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T10:05:00.000Z';
const LATEST = '2026-11-22T10:10:00.000Z';

const own = (fields: Partial<OfferFields>, updatedAt: string, extra: Partial<Omit<StoredOffer, 'fields'>> = {}) =>
  offerItem(storedOffer({ offer_id: 'OF-9', ...fields }, { id: 9, updated_at: updatedAt, ...extra }), 'c1');
const losing = own({ winning: false, offer_price: 460, winning_price: 449.99, total_competitors: 4 }, FIRST);
const winning = own({ winning: true, offer_price: 449, winning_price: 449, total_competitors: 4 }, LATER);
const competitor = (fields: Partial<OfferFields>, updatedAt: string) => own({ seller_id: 'seller-other', ...fields }, updatedAt, { scope: 'other' });

const webhooksQueue = () => {
  const sent: QueueMessage[] = [];
  const sender: QueueSender = { send: async (messages) => void sent.push(...messages) };
  const forward = forwardChanges({ lists: { send: async () => undefined }, repricing: { send: async () => undefined }, webhooks: sender });
  const events = (): { group: string; event: WebhookEventMessage }[] =>
    sent.map((message) => ({ group: message.groupId, event: webhookEventMessage.parse(JSON.parse(message.body)) }));
  return { forward, events };
};

beforeEach(() => logger.setLogLevel('SILENT'));

describe('BUYBOX_WON and BUYBOX_LOST in the webhooks route of the forwarder', () => {
  it('announces an own offer that started winning, with its prices and competitors, in its offer group', async () => {
    // Prepare
    const queue = webhooksQueue();

    // Act
    const result = await queue.forward({ Records: [streamRecord(winning, losing)] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(queue.events()).toEqual([
      {
        group: 'c1#O9',
        event: {
          clientId: 'c1',
          eventId: `BUYBOX_WON-9-${LATER}`,
          eventType: 'BUYBOX_WON',
          eventTimestamp: LATER,
          data: {
            id: 9,
            offer_id: 'OF-9',
            product_code: 'SKU-1',
            connector: 'takealot',
            offer_price: 449,
            winning_price: 449,
            total_competitors: 4,
            changed_at: LATER,
          },
        },
      },
    ]);
  });

  it('announces an own offer that stopped winning, with the price that wins now', async () => {
    // Prepare
    const queue = webhooksQueue();
    const lost = own({ winning: false, offer_price: 449, winning_price: 445, total_competitors: 5 }, LATEST);

    // Act
    await queue.forward({ Records: [streamRecord(lost, winning)] });

    // Assert
    expect(queue.events()).toEqual([
      {
        group: 'c1#O9',
        event: {
          clientId: 'c1',
          eventId: `BUYBOX_LOST-9-${LATEST}`,
          eventType: 'BUYBOX_LOST',
          eventTimestamp: LATEST,
          data: expect.objectContaining({ id: 9, offer_price: 449, winning_price: 445, total_competitors: 5, changed_at: LATEST }) as unknown,
        },
      },
    ]);
  });

  it.each([
    ['a competitor offer that started winning', () => streamRecord(competitor({ winning: true }, LATER), competitor({ winning: false }, FIRST))],
    ['a competitor offer that stopped winning', () => streamRecord(competitor({ winning: false }, LATER), competitor({ winning: true }, FIRST))],
    ['an own offer whose price moved but that still wins', () => streamRecord(own({ winning: true, offer_price: 448, winning_price: 448 }, LATEST), winning)],
    ['an own offer that still loses', () => streamRecord(own({ winning: false, winning_price: 440 }, LATER), losing)],
    ['a new own offer that wins from the start (INSERT)', () => streamRecord(winning, undefined)],
    ['an own winning offer removed (REMOVE)', () => removedRecord(winning)],
  ])('announces nothing for %s', async (_case, record) => {
    // Prepare
    const queue = webhooksQueue();

    // Act
    const result = await queue.forward({ Records: [record()] });

    // Assert
    expect(result.batchItemFailures).toEqual([]);
    expect(queue.events()).toEqual([]);
  });

  it('gives the same stream record read twice the same event id, and each flip its own, in the order made', async () => {
    // Prepare
    const queue = webhooksQueue();
    const won = streamRecord(winning, losing);
    const lost = own({ winning: false }, LATEST);

    // Act
    await queue.forward({ Records: [won, streamRecord(lost, winning)] });
    await queue.forward({ Records: [won] });

    // Assert
    const ids = queue.events().map(({ group, event }) => [group, event.eventId]);
    expect(ids).toEqual([
      ['c1#O9', `BUYBOX_WON-9-${LATER}`],
      ['c1#O9', `BUYBOX_LOST-9-${LATEST}`],
      ['c1#O9', `BUYBOX_WON-9-${LATER}`],
    ]);
  });
});
