import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../../lambdas/data/table/dynamo.js';
import { priceChangePartition } from '../../lambdas/data/table/keys.js';
import { transitionPriceChange } from '../../lambdas/data/price-changes/status.js';
import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * PRICE_CHANGE_APPLIED / PRICE_CHANGE_FAILED and BUYBOX_WON / BUYBOX_LOST end to end
 * (docs/webhooks.md): from the table's writes through the stream, the forwarder, the queue and
 * the worker to a local receiver. Every stream batch and queue batch is handed to its handler
 * twice (`deliverTwice`), and each event still arrives once.
 */
let api: TestApi;
const receivers: WebhookReceiver[] = [];
const json = { 'content-type': 'application/json' };
type Received = { event_id: string; event_type: string; event_timestamp: string; event_data: Record<string, unknown> };

beforeAll(async () => {
  api = await startTestApi({ events: { deliverTwice: true } });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** A receiver of the test's own: each test counts only what its client was sent. */
const receiver = async () => {
  const started = await startReceiver();
  receivers.push(started);
  return { url: started.url, received: (): Received[] => started.received.map((request) => JSON.parse(request.body) as Received) };
};

/** Settles, then waits (at most 20 s) for `done`. */
const settledUntil = async (done: () => boolean): Promise<void> => {
  await api.settle();
  const deadline = Date.now() + 20_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
};
/** Long enough for a second copy of a delivery to arrive, were one sent. */
const quietly = async () => {
  await api.settle();
  await new Promise((resolve) => setTimeout(resolve, 500));
};

it('announces the own offer winning and losing the buy box, once each, and nothing about a rival or a new offer', async () => {
  // Prepare: the own offer is new and winning (no event), the rival loses
  await api.createClient('wh-buybox', { password: 'wh-buybox-password', sellerId: 'seller-bb', connector: 'amazon' });
  const auth: [string, string] = ['wh-buybox', 'wh-buybox-password'];
  const { url, received } = await receiver();
  const own = (winning: boolean, price: number, winningPrice: number) =>
    offerRecord('BB1-own', 'BB-1', { seller_id: 'seller-bb', winning, offer_price: price, winning_price: winningPrice, total_competitors: 2 });
  const rival = (winning: boolean) => offerRecord('BB1-rival', 'BB-1', { seller_id: 'seller-rival', winning, offer_price: 50, winning_price: 50 });
  const hook = await api.request('POST', '/v1/webhooks', { auth, body: { url, event_types: ['BUYBOX_WON', 'BUYBOX_LOST'] }, headers: json });
  expect(hook.status).toBe(201);
  await api.importRecords(auth[0], [
    connectorRecord('amazon'),
    productRecord('BB-1', { fee_estimates: { amazon: fees(5, 15) } }),
    own(true, 49, 49),
    rival(false),
  ]);
  await quietly();
  expect(received()).toEqual([]);

  // Act: the rival wins (the own offer loses), then the own offer wins it back
  await api.importRecords(auth[0], [rival(true), own(false, 49, 48)]);
  await settledUntil(() => received().length >= 1);
  await api.importRecords(auth[0], [rival(false), own(true, 47.5, 47.5)]);
  await settledUntil(() => received().length >= 2);
  await quietly();

  // Assert
  const events = received();
  expect(events.map((event) => [event.event_type, event.event_data.offer_price, event.event_data.winning_price])).toEqual([
    ['BUYBOX_LOST', 49, 48],
    ['BUYBOX_WON', 47.5, 47.5],
  ]);
  const offers = await api.request<{ offers: { id: number; offer_id: string }[] }>('GET', '/v1/offers', { auth });
  const ownId = offers.body.offers.find((offer) => offer.offer_id === 'BB1-own')?.id;
  expect(events[0]!.event_data).toMatchObject({ id: ownId, offer_id: 'BB1-own', product_code: 'BB-1', connector: 'amazon', total_competitors: 2 });
  expect(events.every((event) => event.event_timestamp === event.event_data.changed_at)).toBe(true);
}, 120_000);

it('announces a price change that reached applied or failed, once, with its record, and nothing for the moves before', async () => {
  // Prepare: two repricers decide a price change each (suggested)
  const account = await api.createClient('wh-outcome', { password: 'wh-outcome-password', sellerId: 'seller-oc', connector: 'amazon' });
  const auth: [string, string] = ['wh-outcome', 'wh-outcome-password'];
  const { url, received } = await receiver();
  await api.importRecords(auth[0], [
    connectorRecord('amazon'),
    ...['OC-1', 'OC-2'].flatMap((code) => [
      productRecord(code, { fee_estimates: { amazon: fees(5, 15) } }),
      offerRecord(`${code}-own`, code, { seller_id: 'seller-oc', offer_price: 55 }),
      offerRecord(`${code}-rival`, code, { seller_id: 'seller-rival', offer_price: 58 }),
    ]),
  ]);
  const hook = await api.request('POST', '/v1/webhooks', {
    auth,
    body: { url, event_types: ['PRICE_CHANGE_APPLIED', 'PRICE_CHANGE_FAILED'] },
    headers: json,
  });
  expect(hook.status).toBe(201);
  for (const code of ['OC-1', 'OC-2']) {
    const repricer = await api.request('POST', '/v1/repricers/', {
      auth,
      body: { product_code: code, preferred_price: 60, preferred_profit: 10 },
      headers: json,
    });
    expect(repricer.status).toBe(201);
  }
  await api.settle();
  const refOf = async (code: string) => {
    const items = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': priceChangePartition(account.clientId, code) },
      }),
    );
    expect(items.Items).toHaveLength(1);
    return { productCode: code, sk: String(items.Items![0]!.sk) };
  };
  const [first, second] = [await refOf('OC-1'), await refOf('OC-2')];

  // Act: both are sent (no event); one is applied, the other fails
  const at = (second: number) => `2026-11-25T10:00:${String(second).padStart(2, '0')}.000Z`;
  for (const ref of [first, second]) {
    expect(
      await transitionPriceChange(account.clientId, ref, { from: ['suggested'], to: 'sent', fields: { sent_price: 57, sent_at: at(1) }, now: at(1) }),
    ).toBeDefined();
  }
  await quietly();
  const afterSent = received().length;
  const applied = await transitionPriceChange(account.clientId, first, { from: ['sent'], to: 'applied', fields: { applied_at: at(2) }, now: at(2) });
  const failed = await transitionPriceChange(account.clientId, second, {
    from: ['sent'],
    to: 'failed',
    fields: { status_reason: 'The marketplace refused the price.' },
    now: at(3),
  });
  // A later write that keeps the status is no event.
  await transitionPriceChange(account.clientId, first, { from: ['applied'], fields: {}, now: at(4) });
  await settledUntil(() => received().length >= 2);
  await quietly();

  // Assert
  expect(afterSent).toBe(0);
  const outcomes = received();
  expect(outcomes.map((event) => event.event_type).sort()).toEqual(['PRICE_CHANGE_APPLIED', 'PRICE_CHANGE_FAILED']);
  expect(outcomes.find((event) => event.event_type === 'PRICE_CHANGE_APPLIED')).toEqual({
    event_id: `PRICE_CHANGE_APPLIED-${applied!.id}-${at(2)}`,
    event_type: 'PRICE_CHANGE_APPLIED',
    event_timestamp: at(2),
    event_data: applied,
  });
  expect(outcomes.find((event) => event.event_type === 'PRICE_CHANGE_FAILED')).toEqual({
    event_id: `PRICE_CHANGE_FAILED-${failed!.id}-${at(3)}`,
    event_type: 'PRICE_CHANGE_FAILED',
    event_timestamp: at(3),
    event_data: failed,
  });
}, 120_000);
