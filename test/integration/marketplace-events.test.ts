/**
 * The marketplace-events route end to end (docs/connections.md, "Marketplace events"): the local
 * API with a connection to a marketplace simulator on 127.0.0.1, events signed as the simulator
 * signs its webhooks. A verified new event is recorded once; everything else gets one fixed 401
 * and changes nothing; the webhook secret appears in no response, log line or item. A change of
 * the connection's status reaches the client's webhook as CONNECTION_STATUS_CHANGED.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_REFUSED } from '../../lambdas/functions/receive-marketplace-event/answers.js';
import { connectionKey } from '../../lambdas/data/table/keys.js';
import { documentClient } from '../../lambdas/data/table/dynamo.js';
import { signWebhook, type MarketSimulator } from '../../tools/market/index.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';
import { captureOutput } from '../support/output-capture.js';
import { step } from '../support/story.js';
import { tableScanner, type TableScanner } from '../support/table-snapshot.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// Every log line is written, so the search for the secret covers what a debug run would show.
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';

let market: MarketSimulator;
let api: TestApi;
let scanner: TableScanner;
let receiver: WebhookReceiver;
let uid: string;
let clientId: string;
const alice: [string, string] = ['mevt-alice', 'mevt-alice-password'];
const captured = captureOutput();
const bodies: string[] = [];

const track = <T>(response: ApiResponse<T>): ApiResponse<T> => {
  bodies.push(response.text, JSON.stringify(response.headers));
  return response;
};

type Scheme = 'hex-body' | 'base64-url-body';
interface Delivery {
  readonly to?: string;
  readonly deliveryId: string;
  readonly body?: string;
  readonly event?: string;
  /** The scheme to sign with, `unsigned`, or a signature of its own. */
  readonly signature?: Scheme | 'unsigned' | { readonly value: string };
}

/** Posts an event as the marketplace would: signed the way the simulator signs its webhooks. */
const deliver = async ({
  to = uid,
  deliveryId,
  body = JSON.stringify({ offer_id: 424242, values_changed: { selling_price: { old: 100, new: 95 } } }),
  event = 'Offer Updated',
  signature = 'hex-body',
}: Delivery) => {
  const path = `/v1/marketplace-events/${to}`;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-Takealot-Event': event, 'X-Takealot-Delivery': deliveryId };
  if (typeof signature === 'object') headers['X-Takealot-Signature'] = signature.value;
  else if (signature !== 'unsigned') headers['X-Takealot-Signature'] = signWebhook(signature, market.webhookSecret, `${api.baseUrl}${path}`, body);
  return track(await api.request<{ received?: boolean }>('POST', path, { headers, body }));
};

/** The marketplace-event items of the table, by key. */
const eventItems = async () => [...(await scanner.scan())].filter(([key]) => key.includes('#MEVT#'));

const until = async (done: () => boolean): Promise<void> => {
  const deadline = Date.now() + 15_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
};

beforeAll(async () => {
  captured.start();
  market = await startTestMarket({ seed: 5, products: 3, competitors: 1 });
  api = await startTestApi();
  scanner = tableScanner(api.tableName);
  receiver = await startReceiver();
  clientId = (await api.createClient(alice[0], { password: alice[1] })).clientId;
  await api.importRecords(alice[0], [connectorRecord('takealot')]);
  const hook = await api.request('POST', '/v1/webhooks', { auth: alice, body: { url: receiver.url, event_types: ['CONNECTION_STATUS_CHANGED'] } });
  expect(hook.status).toBe(201);
  const connected = track(
    await api.request<{ uid: string }>('PUT', '/v1/connections/takealot', {
      auth: alice,
      body: { api_key: market.apiKey, webhook_secret: market.webhookSecret, mode: 'live', seller_id: market.options.sellerId },
    }),
  );
  expect(connected.status).toBe(201);
  uid = connected.body.uid;
}, 120_000);

afterAll(async () => {
  captured.stop();
  scanner?.close();
  await receiver?.close();
  await api?.close();
  await stopTestMarket(market);
});

describe('marketplace events', () => {
  it('announces status changes, records verified events once, refuses everything else alike, and never shows the secret', async () => {
    // First: the events recorded below are then forwarded to the market-sync queue, which this runtime may not consume yet.
    await step('a change of the connection status reaches the client webhook as CONNECTION_STATUS_CHANGED', async () => {
      const changedAt = new Date().toISOString();
      await documentClient.send(
        new UpdateCommand({
          TableName: api.tableName,
          Key: connectionKey(clientId, 'takealot'),
          UpdateExpression: 'SET #record.#status = :status, #record.last_error = :error, #record.updated_at = :now',
          ExpressionAttributeNames: { '#record': 'record', '#status': 'status' },
          ExpressionAttributeValues: { ':status': 'unauthorized', ':error': 'The marketplace refused the key.', ':now': changedAt },
        }),
      );
      await api.settle();
      await until(() => receiver.received.length >= 1);
      expect(receiver.received.map((request) => JSON.parse(request.body) as unknown)).toEqual([
        {
          event_id: `CONNECTION_STATUS_CHANGED-${uid}-${changedAt}-unauthorized`,
          event_type: 'CONNECTION_STATUS_CHANGED',
          event_timestamp: changedAt,
          event_data: {
            connector: 'takealot',
            uid,
            status: 'unauthorized',
            previous_status: 'connected',
            last_error: 'The marketplace refused the key.',
            changed_at: changedAt,
          },
        },
      ]);
    });

    const first = randomUUID();
    await step('a signed Offer Updated is received (200) and recorded under the tenant, without what it says changed', async () => {
      const response = await deliver({ deliveryId: first });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ received: true });
      const items = await eventItems();
      expect(items.map(([key]) => key)).toEqual([`T#${clientId}#MEVT#${uid}\u0000${first}`]);
      expect(JSON.parse(items[0]![1])).toMatchObject({ entity: { S: 'marketplaceEvent' }, eventType: { S: 'offer_updated' }, offerId: { S: '424242' } });
      expect(items[0]![1]).not.toContain('selling_price');
    });

    await step('the URL + body scheme is verified against the URL the route was called at', async () => {
      // A warm function answers within the sender's reported 5 s (two reads, a cached decrypt, one conditional put), with a busy machine's margin.
      const startedAt = performance.now();
      expect((await deliver({ deliveryId: randomUUID(), signature: 'base64-url-body' })).status).toBe(200);
      expect(performance.now() - startedAt).toBeLessThan(5_000);
      expect(await eventItems()).toHaveLength(2);
    });

    await step('a repeat, an unsigned or badly signed event and an unknown uid get the same 401 and change nothing', async () => {
      const before = await eventItems();
      const refused = [
        await deliver({ deliveryId: first }),
        await deliver({ deliveryId: randomUUID(), signature: 'unsigned' }),
        await deliver({ deliveryId: randomUUID(), signature: { value: signWebhook('hex-body', 'not-the-secret-at-all', '', '{"offer_id":424242}') } }),
        await deliver({
          deliveryId: randomUUID(),
          body: '{"offer_id":1}',
          signature: { value: signWebhook('hex-body', market.webhookSecret, '', '{"offer_id":2}') },
        }),
        await deliver({ deliveryId: randomUUID(), to: randomUUID() }),
      ];
      expect(refused.map((response) => response.status)).toEqual([401, 401, 401, 401, 401]);
      expect(new Set(refused.map((response) => response.text))).toEqual(new Set([JSON.stringify(EVENT_REFUSED)]));
      expect(refused.every((response) => response.headers['www-authenticate'] === undefined)).toBe(true);
      expect(await eventItems()).toEqual(before);
    });

    await step('the webhook secret is in no response, log line or item', async () => {
      const items = JSON.stringify([...(await scanner.scan()).values()]);
      expect(items).not.toContain(market.webhookSecret);
      expect(bodies.join('\n')).not.toContain(market.webhookSecret);
      expect(captured.written.join('')).not.toContain(market.webhookSecret);
      // The refusals were logged, with their reasons.
      expect(captured.written.join('')).toContain('repeated-delivery');
    });
  });
});
