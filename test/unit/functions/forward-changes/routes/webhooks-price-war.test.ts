import { forwardChanges } from '../../../../../lambdas/functions/forward-changes/forward.js';
import { type StoredWarState } from '../../../../../lambdas/data/price-changes/price-wars.js';
import { warKey } from '../../../../../lambdas/data/table/keys.js';
import type { WarState } from '../../../../../lambdas/domain/price-war.js';
import { webhookEventMessage, type WebhookEventMessage } from '../../../../../lambdas/events/webhook-events.js';
import { logger } from '../../../../../lambdas/observability/logger.js';
import type { QueueMessage, QueueSender } from '../../../../../lambdas/queue/sender.js';
import { removedRecord, streamRecord } from '../../../fixtures/market-events.js';

/**
 * PRICE_WAR_DETECTED: the forwarder announces a price-war state whose write started a hold
 * (a new `since`), once, in the repricer's group; a state that only follows rival prices, a
 * hold that goes on, and an expiry send nothing. No write of the state asks for a repricing.
 */
const SINCE = Date.parse('2026-11-22T10:05:00.000Z');
const rivals: WarState['rivals'] = [{ offerId: 'OF-12', sellerId: '29814', price: 95, undercuts: [SINCE - 60_000, SINCE - 30_000, SINCE] }];
const hold = { rivalOfferId: 'OF-12', rivalSellerId: '29814', since: SINCE, until: SINCE + 30 * 60_000, undercuts: 3 };
const item = (state: WarState) => {
  const stored: StoredWarState = { entity: 'priceWar', repricerId: 7, offerId: 'OF-9', productCode: 'SKU-1', connector: 'takealot', state };
  return { ...warKey('c1', 'SKU-1', 7, 'OF-9'), ...stored, expiresAt: 1 };
};
const watching = item({ rivals, hold: null });
const holding = item({ rivals, hold });

const queues = () => {
  const webhooks: QueueMessage[] = [];
  const repricing: QueueMessage[] = [];
  const forward = forwardChanges({
    lists: { send: async () => undefined },
    repricing: { send: async (messages) => void repricing.push(...messages) } satisfies QueueSender,
    webhooks: { send: async (messages) => void webhooks.push(...messages) } satisfies QueueSender,
  });
  const events = (): { group: string; event: WebhookEventMessage }[] =>
    webhooks.map((message) => ({ group: message.groupId, event: webhookEventMessage.parse(JSON.parse(message.body)) }));
  return { forward, events, repricing };
};

beforeEach(() => logger.setLogLevel('SILENT'));

describe('PRICE_WAR_DETECTED in the webhooks route of the forwarder', () => {
  it('announces the write that starts a hold, once, with the war, in the repricer group', async () => {
    const queue = queues();

    await queue.forward({ Records: [streamRecord(holding, watching)] });

    expect(queue.events()).toEqual([
      {
        group: 'c1#R7',
        event: {
          clientId: 'c1',
          eventId: 'PRICE_WAR_DETECTED-7-OF-9-2026-11-22T10:05:00.000Z',
          eventType: 'PRICE_WAR_DETECTED',
          eventTimestamp: '2026-11-22T10:05:00.000Z',
          data: {
            repricer_id: 7,
            product_code: 'SKU-1',
            connector: 'takealot',
            offer_id: 'OF-9',
            rival_offer_id: 'OF-12',
            rival_seller_id: '29814',
            undercuts: 3,
            reason: 'price_war_hold',
            detected_at: '2026-11-22T10:05:00.000Z',
            hold_until: '2026-11-22T10:35:00.000Z',
          },
        },
      },
    ]);
  });

  it('announces a first state written with a hold, and nothing for one without', async () => {
    const queue = queues();

    await queue.forward({ Records: [streamRecord(watching, undefined), streamRecord(holding, undefined)] });

    expect(queue.events().map(({ event }) => event.eventType)).toEqual(['PRICE_WAR_DETECTED']);
  });

  it('sends nothing while the same hold goes on, when the state only follows prices, or when it expires, and asks for no repricing', async () => {
    const queue = queues();
    const later = item({ rivals: [{ ...rivals[0]!, price: 90 }], hold });

    await queue.forward({ Records: [streamRecord(later, holding), streamRecord(watching, item({ rivals: [], hold: null })), removedRecord(holding)] });

    expect(queue.events()).toEqual([]);
    expect(queue.repricing).toEqual([]);
  });
});
