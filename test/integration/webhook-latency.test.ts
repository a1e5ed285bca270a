import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { bySize } from '../support/profile.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * How long a price change takes to reach a receiver under the local runtime (the target:
 * p99 under 3 s under `npm start`): from the decision's `created_at` to the receiver reading
 * the request, over 20 repricers and 4 rounds of competitor moves. The figures are printed,
 * not asserted: a busy test machine says little about timing; that every event arrives, once,
 * is asserted.
 */
// Every event arriving once needs a few repricers, not many: 5 under `npm test`, 20 (80 events) under
// `npm run test:full`, whose printed percentiles are the figure docs/performance.md quotes.
const PRODUCTS = bySize(5, 20);
const ROUNDS = [54, 52, 50];

let api: TestApi;
let target: WebhookReceiver;
const arrivals: { createdAt: number; receivedAt: number }[] = [];

beforeAll(async () => {
  api = await startTestApi();
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

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

it('delivers every price change once and prints the latency from decision to receiver', async () => {
  // Prepare
  const auth: [string, string] = ['wh-latency', 'wh-latency-password'];
  await api.createClient(auth[0], { password: auth[1], sellerId: 'seller-l', connector: 'amazon' });
  const codes = Array.from({ length: PRODUCTS }, (_, i) => `L-${i}`);
  await api.importRecords(auth[0], [
    connectorRecord('amazon'),
    ...codes.flatMap((code) => [
      productRecord(code, { fee_estimates: { amazon: fees(5, 15) } }),
      offerRecord(`${code}-own`, code, { seller_id: 'seller-l', offer_price: 55 }),
      offerRecord(`${code}-rival`, code, { seller_id: 'seller-rival', offer_price: 58 }),
    ]),
  ]);
  const original = target.received.push.bind(target.received);
  target.received.push = (...items) => {
    for (const item of items) {
      const event = JSON.parse(item.body) as { event_data: { created_at: string } };
      arrivals.push({ createdAt: Date.parse(event.event_data.created_at), receivedAt: Date.now() });
    }
    return original(...items);
  };
  const hook = await api.request('POST', '/v1/webhooks', {
    auth,
    body: { url: target.url, event_types: ['REPRICER_PRICE_CHANGED'] },
    headers: { 'content-type': 'application/json' },
  });
  expect(hook.status).toBe(201);

  // Act
  for (const code of codes) {
    await api.request('POST', '/v1/repricers/', {
      auth,
      body: { product_code: code, preferred_price: 60, preferred_profit: 10 },
      headers: { 'content-type': 'application/json' },
    });
  }
  await receivedAtLeast(PRODUCTS);
  // Each round once the one before is delivered, so each move is a decision of its own.
  for (const [round, price] of ROUNDS.entries()) {
    await api.importRecords(
      auth[0],
      codes.map((code) => offerRecord(`${code}-rival`, code, { seller_id: 'seller-rival', offer_price: price })),
    );
    await receivedAtLeast(PRODUCTS * (round + 2));
  }
  await api.settle();

  // Assert
  const expected = PRODUCTS * (1 + ROUNDS.length);
  expect(target.received).toHaveLength(expected);
  expect(new Set(target.received.map((r) => r.body)).size).toBe(expected);
  const latencies = arrivals.map((a) => a.receivedAt - a.createdAt).sort((a, b) => a - b);
  process.stdout.write(
    `webhook latency over ${latencies.length} events (ms): p50 ${percentile(latencies, 50)}, p90 ${percentile(latencies, 90)}, ` +
      `p99 ${percentile(latencies, 99)}, max ${latencies.at(-1)}\n`,
  );
}, 300_000);
