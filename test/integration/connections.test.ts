/**
 * Connections end to end (docs/connections.md): the local API with the Takealot adapter pointed
 * at a marketplace simulator on 127.0.0.1. A key is checked with the marketplace before anything
 * is stored, then kept only sealed: it appears in no response, no log line and no table item.
 */
import type { MarketSimulator } from '../../tools/market/index.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { tableScanner } from '../support/table-snapshot.js';
import { step } from '../support/story.js';
import { captureOutput } from '../support/output-capture.js';
import { marketHarness } from '../support/market-harness.js';
import { SYNC_REQUESTS_PER_WINDOW_ENV } from '../../lambdas/config/sync-requests.js';
import { READ_PLANNER } from '../../lambdas/config/read-planner.js';

// Every log line is written, so the search for the key covers what a debug run would show.
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
// The stage's own limit of sync requests (the test API's default is far above it).
process.env[SYNC_REQUESTS_PER_WINDOW_ENV] = String(READ_PLANNER.syncsPerWindow);

type Connection = {
  connector: string;
  uid: string;
  key_last4: string;
  mode: string;
  status: string;
  sync_requested_at: string | null;
  last_sync_at: string | null;
  webhook_secret_set: boolean;
};
type Problem = { status: number; detail: string };

const WEBHOOK_SECRET = 'whsec_marketplace_connection_test_0001';
let market: MarketSimulator;
let api: TestApi;
let alice: [string, string];
let bob: [string, string];

/** Everything the API writes to stdout and stderr while this file runs, searched for the key at the end. */
const captured = captureOutput();
const output = captured.written;

/** Every response body of this file, searched for the key at the end. */
const bodies: string[] = [];
const call = async <T>(method: string, path: string, auth: [string, string], body?: unknown) => {
  const response = await api.request<T>(method, path, { auth, ...(body === undefined ? {} : { body }) });
  bodies.push(response.text, JSON.stringify(response.headers));
  return response;
};
const put = (auth: [string, string], body: unknown, connector = 'takealot') => call<Connection & Problem>('PUT', `/v1/connections/${connector}`, auth, body);

beforeAll(async () => {
  captured.start();
  // The stage's settings point at it before the API starts, as a stage's would.
  market = await startTestMarket({ seed: 3, products: 5, competitors: 2 });
  api = await startTestApi();
  alice = ['conn-alice', 'conn-alice-password'];
  bob = ['conn-bob', 'conn-bob-password'];
  await api.createClient(alice[0], { password: alice[1] });
  await api.createClient(bob[0], { password: bob[1] });
  await api.importRecords(alice[0], [connectorRecord('takealot'), connectorRecord('amazon')]);
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
  await stopTestMarket(market);
});

describe('connections', () => {
  it('connects, refuses, replaces, syncs, hides the key and deletes, in that order', async () => {
    await step('refuses a key the marketplace refuses (422) and stores nothing', async () => {
      const refused = await put(alice, { api_key: 'definitely-not-the-key-000' });
      expect(refused.status).toBe(422);
      expect((await call('GET', '/v1/connections/takealot', alice)).status).toBe(404);
    });
    await step('answers 503 with Retry-After, storing nothing, when the marketplace fails during the check', async () => {
      market.control.setFaults({ errorRate: 1 });
      try {
        const failed = await put(alice, { api_key: market.apiKey });
        expect(failed.status).toBe(503);
        expect(Number(failed.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      } finally {
        market.control.setFaults({ errorRate: 0 });
      }
      expect((await call('GET', '/v1/connections/takealot', alice)).status).toBe(404);
      expect((await call<{ connections: Connection[] }>('GET', '/v1/connections', alice)).body.connections).toEqual([]);
    });
    await step('connects with the marketplace’s key (201), shows only its last four characters, and replaces it (200)', async () => {
      const created = await put(alice, { api_key: market.apiKey, webhook_secret: WEBHOOK_SECRET });
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe('/v1/connections/takealot');
      expect(created.body).toMatchObject({
        connector: 'takealot',
        key_last4: market.apiKey.slice(-4),
        mode: 'suggest',
        status: 'connected',
        webhook_secret_set: true,
        offers_synced: 0,
        prices_sent: 0,
        last_sync_at: null,
      });

      const replaced = await put(alice, { api_key: market.apiKey, mode: 'live' });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ uid: created.body.uid, mode: 'live', webhook_secret_set: false });

      expect((await call<Connection>('GET', '/v1/connections/takealot', alice)).body).toEqual(replaced.body);
      expect((await call<{ connections: Connection[] }>('GET', '/v1/connections', alice)).body).toEqual({ connections: [replaced.body] });
    });
    await step('refuses a strict body: an unknown field, a bad mode, text outside the rule', async () => {
      for (const body of [{ api_key: market.apiKey, extra: 1 }, { api_key: market.apiKey, mode: 'auto' }, { api_key: `${market.apiKey}\u0000` }, {}]) {
        expect((await put(alice, body)).status).toBe(400);
      }
    });
    await step('answers 404 for a connector type that does not exist, 422 for one the service cannot talk to', async () => {
      expect((await put(alice, { api_key: market.apiKey }, 'nosuchconnector')).status).toBe(404);
      expect((await put(alice, { api_key: market.apiKey }, 'amazon')).status).toBe(422);
    });
    await step('records a sync request (202)', async () => {
      const requested = await call<Connection>('POST', '/v1/connections/takealot/sync', alice);
      expect(requested.status).toBe(202);
      expect(requested.body.sync_requested_at).toEqual(expect.any(String));
      expect((await call<Connection>('GET', '/v1/connections/takealot', alice)).body.sync_requested_at).toBe(requested.body.sync_requested_at);
    });
    await step('coalesces requests into the sync already queued, runs it once, then answers 429 with Retry-After beyond the limit', async () => {
      const sync = () => call<Connection & Problem>('POST', '/v1/connections/takealot/sync', alice);
      const queued = (await call<Connection>('GET', '/v1/connections/takealot', alice)).body.sync_requested_at;
      for (let n = 0; n < 3; n++) {
        const joined = await sync();
        expect([joined.status, joined.headers['sync-request'], joined.body.sync_requested_at]).toEqual([202, 'coalesced', queued]);
      }
      const loop = marketHarness(api);
      // The one sync asked for four times runs once: every product's page read on that tick.
      expect(await loop.tick()).toEqual({ syncFailures: 0, reads: 5 });
      const ran = (await call<Connection>('GET', '/v1/connections/takealot', alice)).body;
      expect(ran.last_sync_at! >= queued!).toBe(true);
      for (let accepted = 1; accepted < READ_PLANNER.syncsPerWindow; accepted++) {
        const again = await sync();
        expect([again.status, again.headers['sync-request']]).toEqual([202, 'accepted']);
        await loop.tick();
      }
      const refused = await sync();
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(READ_PLANNER.syncWindowSeconds);
      // Nothing was queued: the record still names the last accepted request.
      expect((await call<Connection>('GET', '/v1/connections/takealot', alice)).body.sync_requested_at).not.toBe(refused.body.sync_requested_at);
    });
    await step('shows another client nothing: every route answers as if the connection did not exist', async () => {
      expect((await call('GET', '/v1/connections/takealot', bob)).status).toBe(404);
      expect((await call<{ connections: Connection[] }>('GET', '/v1/connections', bob)).body).toEqual({ connections: [] });
      expect((await call('POST', '/v1/connections/takealot/sync', bob)).status).toBe(404);
      expect((await call('DELETE', '/v1/connections/takealot', bob)).status).toBe(404);
      expect((await call('GET', '/v1/connections/takealot', alice)).status).toBe(200);
    });
    await step('keeps the key and the webhook secret out of every response, log line and table item', async () => {
      await put(alice, { api_key: market.apiKey, webhook_secret: WEBHOOK_SECRET });
      const scanner = tableScanner(api.tableName);
      try {
        const items = [...(await scanner.scan()).values()];
        expect(items.some((item) => item.includes('"connection"'))).toBe(true);
        for (const secret of [market.apiKey, WEBHOOK_SECRET]) {
          expect(items.filter((item) => item.includes(secret))).toEqual([]);
          expect(bodies.filter((body) => body.includes(secret))).toEqual([]);
          expect(output.filter((line) => line.includes(secret))).toEqual([]);
        }
        // The capture works: the API did log (at DEBUG) while this file ran.
        expect(output.length).toBeGreaterThan(0);
      } finally {
        scanner.close();
      }
    });
    await step('deletes the connection (204) and its uid lookup', async () => {
      const { uid } = (await call<Connection>('GET', '/v1/connections/takealot', alice)).body;
      expect((await call('DELETE', '/v1/connections/takealot', alice)).status).toBe(204);
      expect((await call('GET', '/v1/connections/takealot', alice)).status).toBe(404);
      expect((await call('DELETE', '/v1/connections/takealot', alice)).status).toBe(404);
      const scanner = tableScanner(api.tableName);
      try {
        expect([...(await scanner.scan()).values()].filter((item) => item.includes(uid))).toEqual([]);
      } finally {
        scanner.close();
      }
      // The change stream carried every connection write without a failure.
      await api.settle();
      expect(api.failures()).toEqual([]);
    });
  }, 540_000);
});
