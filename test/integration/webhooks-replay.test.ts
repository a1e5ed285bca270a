import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * At-least-once event sources, exactly-once deliveries: every stream batch and every queue
 * batch is handed to its handler twice (the runtime's `deliverTwice`), and a receiver still
 * gets each event once, because a delivery is keyed by (webhook, event) and written on condition.
 */
let api: TestApi;
let target: WebhookReceiver;

beforeAll(async () => {
  api = await startTestApi({ events: { deliverTwice: true } });
  target = await startReceiver();
}, 120_000);

afterAll(async () => {
  await api?.close();
  await target?.close();
});

/** Settles, then waits (at most 20 s) for the receiver to have `count` requests. */
const receivedAtLeast = async (count: number): Promise<void> => {
  await api.settle();
  const deadline = Date.now() + 20_000;
  while (target.received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
};

it('delivers each price change once when every record and message is delivered twice', async () => {
  // Prepare
  const auth: [string, string] = ['wh-replay', 'wh-replay-password'];
  await api.createClient(auth[0], { password: auth[1], sellerId: 'seller-r', connector: 'amazon' });
  await api.importRecords(auth[0], [
    connectorRecord('amazon'),
    productRecord('RP-1', { fee_estimates: { amazon: fees(5, 15) } }),
    offerRecord('RP1-own', 'RP-1', { seller_id: 'seller-r', offer_price: 55 }),
    offerRecord('RP1-rival', 'RP-1', { seller_id: 'seller-rival', offer_price: 58 }),
  ]);
  const hook = await api.request<{ id: number }>('POST', '/v1/webhooks', {
    auth,
    body: { url: target.url, event_types: ['REPRICER_PRICE_CHANGED'] },
    headers: { 'content-type': 'application/json' },
  });

  // Act
  await api.request('POST', '/v1/repricers/', {
    auth,
    body: { product_code: 'RP-1', preferred_price: 60, preferred_profit: 10 },
    headers: { 'content-type': 'application/json' },
  });
  await receivedAtLeast(1);
  await api.importRecords(auth[0], [offerRecord('RP1-rival', 'RP-1', { seller_id: 'seller-rival', offer_price: 54 })]);
  await receivedAtLeast(2);
  // Long enough for a second copy of either delivery to arrive, were one sent.
  await new Promise((resolve) => setTimeout(resolve, 500));

  // Assert
  const prices = target.received.map((request) => (JSON.parse(request.body) as { event_data: { new_price: number } }).event_data.new_price);
  expect(prices).toEqual([57, 53]);
  const deliveries = await api.request<{ deliveries: { status: string; attempts: number }[] }>('GET', `/v1/webhooks/${hook.body.id}/deliveries`, { auth });
  expect(deliveries.body.deliveries.map((d) => [d.status, d.attempts])).toEqual([
    ['delivered', 1],
    ['delivered', 1],
  ]);
}, 120_000);
