import { createWebhookRoute } from '../../lambdas/functions/create-webhook/handler.js';
import { httpHandler } from '../../lambdas/http/handler.js';
import type { Resolver } from '../../lambdas/webhooks/destination.js';
import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { verifyWithExample } from '../support/signature-example.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Webhooks end to end (docs/webhooks.md): price changes reach local receivers signed, in order
 * per repricer, once each, retried and dead-lettered, never to another client's receiver and
 * never to a forbidden address. The retry schedule and timeout are shortened (the worker's
 * options); everything else is as deployed.
 */
const SCHEDULE = { baseDelayMs: 100, maxDelayMs: 400, windowMs: 3_000 };
const TIMEOUT_MS = 1_000;

/** Names the tests resolve; `rebind-*` answer a public address once (at creation), then a forbidden one. */
const lookups = new Map<string, number>();
const REBOUND: Record<string, string> = { 'rebind-meta.test': '169.254.169.254', 'rebind-private.test': '10.0.0.1', 'rebind-loop6.test': '::1' };
const FIXED: Record<string, string[]> = {
  'metadata.test': ['169.254.169.254'],
  'private.test': ['10.0.0.1'],
  'loopback6.test': ['::1'],
  'mixed.test': ['93.184.216.34', '10.0.0.1'],
};
const resolver: Resolver = async (host) => {
  const rebound = REBOUND[host];
  if (rebound) {
    const n = lookups.get(host) ?? 0;
    lookups.set(host, n + 1);
    return [n === 0 ? { address: '93.184.216.34', family: 4 } : { address: rebound, family: rebound.includes(':') ? 6 : 4 }];
  }
  const fixed = FIXED[host];
  if (!fixed) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return fixed.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let api: TestApi;
const receivers: WebhookReceiver[] = [];
const json = { 'content-type': 'application/json' };

type Webhook = { id: number; url: string; event_types: string[]; secret?: string };
type Delivery = { id: string; status: string; attempts: number; last_status_code: number | null; last_error: string | null };
type Event = { event_type: string; event_timestamp: string; event_data: { id: number; repricer_id: number; new_price: number; created_at: string } };

const receiver = async (respond?: (n: number) => number | 'hang') => {
  const started = await startReceiver(respond);
  receivers.push(started);
  return started;
};

/** A client with one product, its own offer at 55 and a rival at 58: a repricer on it decides 57. */
const seller = async (name: string): Promise<[string, string]> => {
  const auth: [string, string] = [name, `${name}-password-1`];
  await api.createClient(auth[0], { password: auth[1], sellerId: `seller-${name}`, connector: 'amazon' });
  await api.importRecords(auth[0], [
    connectorRecord('amazon'),
    productRecord('W-1', { fee_estimates: { amazon: fees(5, 15) } }),
    offerRecord('W1-own', 'W-1', { seller_id: `seller-${name}`, offer_price: 55 }),
    offerRecord('W1-rival', 'W-1', { seller_id: 'seller-rival', offer_price: 58 }),
  ]);
  return auth;
};
const rivalAt = (auth: [string, string], price: number) =>
  api.importRecords(auth[0], [offerRecord('W1-rival', 'W-1', { seller_id: 'seller-rival', offer_price: price })]);

const createWebhook = (auth: [string, string], url: string, eventTypes = ['REPRICER_PRICE_CHANGED']) =>
  api.request<Webhook>('POST', '/v1/webhooks', { auth, body: { url, event_types: eventTypes }, headers: json });
const createRepricer = async (auth: [string, string]) => {
  const response = await api.request<{ id: number }>('POST', '/v1/repricers/', {
    auth,
    body: { product_code: 'W-1', preferred_price: 60, preferred_profit: 10 },
    headers: json,
  });
  expect(response.status).toBe(201);
  return response.body.id;
};
const deliveriesOf = async (auth: [string, string], id: number) =>
  (await api.request<{ deliveries: Delivery[] }>('GET', `/v1/webhooks/${id}/deliveries`, { auth })).body.deliveries;
/**
 * Settles, then polls until `done` holds (or 20 s pass): the runtime's settle can return while a
 * stream record written during its last round is still unread, so a test that counts
 * deliveries waits for them rather than trusting one settle.
 */
const until = async (done: () => Promise<boolean> | boolean): Promise<void> => {
  const deadline = Date.now() + 20_000;
  while (!(await done()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
};
const settledUntil = async (done: () => Promise<boolean> | boolean): Promise<void> => {
  await api.settle();
  await until(done);
};
const events = (target: WebhookReceiver) => target.received.map((request) => JSON.parse(request.body) as Event);

beforeAll(async () => {
  api = await startTestApi({
    events: { webhooks: { schedule: SCHEDULE, timeoutMs: TIMEOUT_MS, resolve: resolver } },
    handlers: { 'lambdas/functions/create-webhook/handler.ts': httpHandler(createWebhookRoute(resolver), { jsonBody: true }) },
  });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await Promise.all(receivers.map((r) => r.close()));
});

describe('the webhook resource', () => {
  it('creates, shows the secret once, lists, gets, deletes; another client sees none of it', async () => {
    // Prepare
    const alice = await seller('wh-res-alice');
    const bob = await seller('wh-res-bob');

    // Act
    const created = await createWebhook(alice, 'http://127.0.0.1:9/hooks', ['REPRICER_PRICE_CHANGED', 'IMPORT_COMPLETED']);
    const { secret, ...webhook } = created.body;
    const listed = await api.request<{ webhooks: Webhook[] }>('GET', '/v1/webhooks', { auth: alice });
    const got = await api.request<Webhook>('GET', `/v1/webhooks/${webhook.id}`, { auth: alice });
    const bobGets = await api.request('GET', `/v1/webhooks/${webhook.id}`, { auth: bob });
    const bobDeletes = await api.request('DELETE', `/v1/webhooks/${webhook.id}`, { auth: bob });
    const bobLists = await api.request<{ webhooks: Webhook[] }>('GET', '/v1/webhooks', { auth: bob });
    const bobDeliveries = await api.request('GET', `/v1/webhooks/${webhook.id}/deliveries`, { auth: bob });
    const deleted = await api.request('DELETE', `/v1/webhooks/${webhook.id}`, { auth: alice });
    const gone = await api.request('GET', `/v1/webhooks/${webhook.id}`, { auth: alice });

    // Assert
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/v1/webhooks/${webhook.id}`);
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(webhook).toMatchObject({ url: 'http://127.0.0.1:9/hooks', event_types: ['REPRICER_PRICE_CHANGED', 'IMPORT_COMPLETED'] });
    expect(listed.body.webhooks).toEqual([webhook]);
    expect(got.body).toEqual(webhook);
    expect(JSON.stringify([listed.body, got.body])).not.toContain(secret!);
    expect([bobGets.status, bobDeletes.status, bobDeliveries.status]).toEqual([404, 404, 404]);
    expect(bobLists.body.webhooks).toEqual([]);
    expect([deleted.status, gone.status]).toEqual([204, 404]);
  }, 60_000);

  it('refuses a sixth webhook, also when eight are created at once, and frees a place on delete', async () => {
    // Prepare
    const carol: [string, string] = ['wh-limit-carol', 'wh-limit-carol-password'];
    await api.createClient(carol[0], { password: carol[1] });

    // Act
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => createWebhook(carol, `http://127.0.0.1:9/h${i}`)));
    const sixth = await createWebhook(carol, 'http://127.0.0.1:9/sixth');
    const first = burst.find((response) => response.status === 201)!;
    await api.request('DELETE', `/v1/webhooks/${first.body.id}`, { auth: carol });
    const afterDelete = await createWebhook(carol, 'http://127.0.0.1:9/again');
    const listed = await api.request<{ webhooks: Webhook[] }>('GET', '/v1/webhooks', { auth: carol });

    // Assert
    expect(burst.map((response) => response.status).sort()).toEqual([201, 201, 201, 201, 201, 409, 409, 409]);
    expect(sixth.status).toBe(409);
    expect(afterDelete.status).toBe(201);
    expect(listed.body.webhooks).toHaveLength(5);
  }, 60_000);

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'https://169.254.169.254/',
    'https://10.0.0.1/hooks',
    'https://[::1]/hooks',
    'https://[::ffff:169.254.169.254]/',
    'https://[fd00:ec2::254]/',
    'https://metadata.test/hooks',
    'https://private.test/hooks',
    'https://loopback6.test/hooks',
    'https://mixed.test/hooks',
    'https://unknown.test/hooks',
    'http://example.com/hooks',
    'http://127.0.0.2:8080/hooks',
    'https://user:pass@127.0.0.1/hooks',
  ])(
    'refuses %s at creation',
    async (url) => {
      // Prepare
      const dan: [string, string] = ['wh-ssrf-dan', 'wh-ssrf-dan-password'];
      await api.createClient(dan[0], { password: dan[1] }).catch(() => undefined);

      // Act
      const response = await createWebhook(dan, url);

      // Assert
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errors: [{ field: 'url' }] });
    },
    30_000,
  );
});

describe('deliveries', () => {
  it("delivers one repricer's price changes signed and in order, verified by the example of docs/webhooks.md, to its own client only", async () => {
    // Prepare
    const alice = await seller('wh-order-alice');
    const bob = await seller('wh-order-bob');
    const aliceReceiver = await receiver();
    const bobReceiver = await receiver();
    const aliceHook = (await createWebhook(alice, aliceReceiver.url)).body;
    const bobHook = (await createWebhook(bob, bobReceiver.url.replace('127.0.0.1', 'localhost'))).body;

    // Act
    const aliceRepricer = await createRepricer(alice);
    const bobRepricer = await createRepricer(bob);
    // Each decision before the next competitor move, so each move is a decision of its own.
    await settledUntil(() => aliceReceiver.received.length >= 1 && bobReceiver.received.length >= 1);
    for (const price of [54, 52, 50]) await rivalAt(alice, price);
    await rivalAt(bob, 53);
    await settledUntil(() => aliceReceiver.received.length >= 4 && bobReceiver.received.length >= 2);

    // Assert
    const aliceEvents = events(aliceReceiver);
    expect(aliceEvents.map((event) => [event.event_type, event.event_data.repricer_id, event.event_data.new_price])).toEqual([
      ['REPRICER_PRICE_CHANGED', aliceRepricer, 57],
      ['REPRICER_PRICE_CHANGED', aliceRepricer, 53],
      ['REPRICER_PRICE_CHANGED', aliceRepricer, 51],
      ['REPRICER_PRICE_CHANGED', aliceRepricer, 49],
    ]);
    expect(aliceEvents.every((event) => event.event_timestamp === event.event_data.created_at)).toBe(true);
    expect(events(bobReceiver).map((event) => [event.event_data.repricer_id, event.event_data.new_price])).toEqual([
      [bobRepricer, 57],
      [bobRepricer, 52],
    ]);
    const signed = (target: WebhookReceiver) => target.received.map((request) => ({ body: request.body, headers: request.headers }));
    expect(verifyWithExample(aliceHook.secret!, signed(aliceReceiver))).toEqual([true, true, true, true]);
    expect(verifyWithExample(bobHook.secret!, signed(bobReceiver))).toEqual([true, true]);
    // Another client's secret does not verify them, nor a body changed by one byte.
    expect(verifyWithExample(bobHook.secret!, signed(aliceReceiver).slice(0, 1))).toEqual([false]);
    expect(
      verifyWithExample(
        aliceHook.secret!,
        signed(aliceReceiver)
          .slice(0, 1)
          .map((d) => ({ ...d, body: `${d.body} ` })),
      ),
    ).toEqual([false]);
    expect((await deliveriesOf(alice, aliceHook.id)).map((d) => [d.status, d.attempts, d.last_status_code])).toEqual(
      Array.from({ length: 4 }, () => ['delivered', 1, 200]),
    );
  }, 120_000);

  it('announces each finished import job once, with its record, to the webhooks subscribed to IMPORT_COMPLETED only', async () => {
    // Prepare
    const carol = await seller('wh-import-carol');
    const imports = await receiver();
    const prices = await receiver();
    await createWebhook(carol, imports.url, ['IMPORT_COMPLETED']);
    await createWebhook(carol, prices.url, ['REPRICER_PRICE_CHANGED']);
    const post = (body: string) =>
      api.request<{ id: number }>('POST', '/v1/imports?import_type=offers', { auth: carol, body, headers: { 'Content-Type': 'application/x-ndjson' } });

    // Act: one job that completes, one refused at validation (created failed)
    const done = await post(`${JSON.stringify(offerRecord('W1-new', 'W-1', { seller_id: 'seller-other', offer_price: 70 }).data)}\n`);
    const refused = await post('{"offer_id":1}\n');
    await settledUntil(() => imports.received.length >= 2);

    // Assert
    expect([done.status, refused.status]).toEqual([202, 202]);
    const announced = imports.received.map(
      (request) => JSON.parse(request.body) as { event_type: string; event_data: { id: number; status: string; created: number; invalid: number } },
    );
    expect(announced.map((event) => [event.event_type, event.event_data.id, event.event_data.status]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      ['IMPORT_COMPLETED', done.body.id, 'completed'],
      ['IMPORT_COMPLETED', refused.body.id, 'failed'],
    ]);
    expect(announced.find((event) => event.event_data.id === done.body.id)?.event_data.created).toBe(1);
    expect(announced.find((event) => event.event_data.id === refused.body.id)?.event_data.invalid).toBe(1);
    expect(prices.received.every((request) => (JSON.parse(request.body) as { event_type: string }).event_type === 'REPRICER_PRICE_CHANGED')).toBe(true);
    // Nothing more comes for them
    await api.settle();
    expect(imports.received).toHaveLength(2);
  }, 120_000);

  it('retries a receiver that fails three times, which then gets the event exactly once as a 2xx', async () => {
    // Prepare
    const erin = await seller('wh-retry-erin');
    const flaky = await receiver((n) => (n < 3 ? 500 : 200));
    const hook = (await createWebhook(erin, flaky.url)).body;

    // Act
    await createRepricer(erin);
    await settledUntil(async () => (await deliveriesOf(erin, hook.id)).every((d) => d.status !== 'pending'));

    // Assert
    expect(flaky.received.map((request) => request.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(flaky.received.map((request) => request.body)).size).toBe(1);
    // One event: its id on every attempt, in the header and the body, so the receiver can drop a repeat.
    const eventId = (JSON.parse(flaky.received[0]!.body) as { event_id: string }).event_id;
    expect(flaky.received.map((request) => request.headers['webhook-id'])).toEqual(Array.from({ length: 4 }, () => eventId));
    expect(eventId).toMatch(/^REPRICER_PRICE_CHANGED-\d+$/);
    expect(await deliveriesOf(erin, hook.id)).toEqual([expect.objectContaining({ status: 'delivered', attempts: 4, last_status_code: 200, last_error: null })]);
  }, 60_000);

  it("dead-letters a delivery to a receiver that never answers, shows it, and delivers the repricer's next event after it", async () => {
    // Prepare
    const fay = await seller('wh-dead-fay');
    const silent = await receiver(() => 'hang');
    const hook = (await createWebhook(fay, silent.url)).body;

    // Act
    const started = Date.now();
    await createRepricer(fay);
    // The first decision is made (its delivery is being tried) before the competitor moves, so
    // the move is a second decision, queued behind the first.
    await until(async () => (await deliveriesOf(fay, hook.id)).length === 1);
    await rivalAt(fay, 54);
    await settledUntil(async () => {
      const deliveries = await deliveriesOf(fay, hook.id);
      return deliveries.length === 2 && deliveries.every((d) => d.status !== 'pending');
    });

    // Assert
    const deliveries = await deliveriesOf(fay, hook.id);
    expect(deliveries.map((d) => [d.status, d.last_status_code])).toEqual([
      ['dead_lettered', null],
      ['dead_lettered', null],
    ]);
    expect(deliveries[0]!.last_error).toBe('no response in time');
    expect(deliveries.every((d) => d.attempts >= 2)).toBe(true);
    // The second event waited for the first to be given up on: each took at least the window
    // less the longest wait (an attempt is not made when the wait after it would end past the window).
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * (SCHEDULE.windowMs - SCHEDULE.maxDelayMs));
    expect(
      events(silent)
        .map((event) => event.event_data.new_price)
        .filter((price, i, all) => all.indexOf(price) === i),
    ).toEqual([57, 53]);
  }, 90_000);

  it('refuses at delivery a name that now resolves to 169.254.169.254, 10.0.0.1 or ::1, and dead-letters it', async () => {
    // Prepare
    const gus = await seller('wh-rebind-gus');
    const hooks: Webhook[] = [];
    for (const host of Object.keys(REBOUND)) {
      const created = await createWebhook(gus, `https://${host}/hooks`);
      expect(created.status).toBe(201);
      hooks.push(created.body);
    }

    // Act
    await createRepricer(gus);
    await settledUntil(async () => {
      const all = await Promise.all(hooks.map((hook) => deliveriesOf(gus, hook.id)));
      return all.every((deliveries) => deliveries.length === 1 && deliveries[0]!.status !== 'pending');
    });

    // Assert
    for (const hook of hooks) {
      const deliveries = await deliveriesOf(gus, hook.id);
      expect(deliveries).toEqual([expect.objectContaining({ status: 'dead_lettered', last_status_code: null })]);
      expect(deliveries[0]!.last_error).toBe('the URL points at an address webhooks may not reach');
    }
  }, 60_000);
});
