/**
 * The controls of a connection that must always work (docs/connections.md, docs/administration.md):
 * the kill switch and the limits without the key or the marketplace (PATCH), a new key that keeps
 * what it does not name (PUT), every hold bounded, and the operator's stop of every push of the
 * stage, through the local runtime against a marketplace simulator on 127.0.0.1.
 */
import { MARKETPLACE_HOLD_MAX_MS } from '../../lambdas/config/marketplace-holds.js';
import type { Connection } from '../../lambdas/domain/connections.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import type { Product as MarketProduct } from '../../tools/market/catalogue.js';
import { cliInProcess } from '../support/cli.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { marketHarness } from '../support/market-harness.js';
import { captureOutput } from '../support/output-capture.js';
import { sellerApiHoldOf, setSellerApiHold } from '../support/seller-api-hold.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';

type Problem = { type: string; errors?: { field: string }[] };

const captured = captureOutput();
const alice: [string, string] = ['controls-alice', 'controls-alice-password-1'];
let market: MarketSimulator;
let api: TestApi;
let clientId: string;
let data: typeof import('../../lambdas/data/connections/connections.js');
let holds: typeof import('../../lambdas/data/connections/seller-api-hold.js');
let domain: typeof import('../../lambdas/domain/connections.js');
let secrets: typeof import('../../lambdas/marketplace/secrets.js');

const request = <T>(method: string, path: string, body?: unknown) => api.request<T>(method, path, { auth: alice, ...(body === undefined ? {} : { body }) });
const patch = (body: unknown, connector = 'takealot') => request<Connection & Problem>('PATCH', `/v1/connections/${connector}`, body);
const put = (body: Record<string, unknown>) =>
  request<Connection & Problem>('PUT', '/v1/connections/takealot', { seller_id: market.options.sellerId, ...body });
const connection = async () => (await request<Connection>('GET', '/v1/connections/takealot')).body;
const stored = async () => (await data.getConnection(clientId, 'takealot'))!;
const sellerRequests = () => Object.values(market.control.traffic().requests).reduce((sum, count) => sum + count, 0);

beforeAll(async () => {
  if (!process.env.SHOW_LOGS) captured.start();
  market = await startTestMarket({ seed: 41, products: 3, competitors: 2, batchDelayMs: 50 });
  api = await startTestApi();
  clientId = (await api.createClient(alice[0], { password: alice[1] })).clientId;
  await api.importRecords(alice[0], [connectorRecord('takealot'), connectorRecord('amazon')]);
  data = await import('../../lambdas/data/connections/connections.js');
  holds = await import('../../lambdas/data/connections/seller-api-hold.js');
  domain = await import('../../lambdas/domain/connections.js');
  secrets = await import('../../lambdas/marketplace/secrets.js');
  expect((await put({ api_key: market.apiKey, mode: 'live', safety: { breaker_share_percent: 100 } })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
  await stopTestMarket(market);
});

describe('PATCH /v1/connections/{connector}', () => {
  it('switches to suggest while the marketplace answers 503 (where a PUT cannot), without calling it', async () => {
    market.control.setFaults({ errorRate: 1 });
    try {
      expect((await put({ api_key: market.apiKey, mode: 'suggest' })).status).toBe(503);
      const before = sellerRequests();
      const switched = await patch({ mode: 'suggest' });
      expect(switched.status).toBe(200);
      expect(switched.body).toMatchObject({ mode: 'suggest', status: 'connected', connector: 'takealot' });
      expect(sellerRequests()).toBe(before);
      expect(await connection()).toEqual(switched.body);
    } finally {
      market.control.setFaults({ errorRate: 0 });
    }
    expect((await patch({ mode: 'live' })).body.mode).toBe('live');
  });

  it('changes only what it names: the other limits, the status and its reason, the hold and the counters stay', async () => {
    const seen = (await stored()).record;
    expect(await data.pauseConnection(clientId, seen, 'circuit breaker: test')).toBe(true);
    const hold = new Date(Date.now() + 5 * 60_000).toISOString();
    await holds.holdSellerApi(clientId, 'takealot', hold);
    const before = await stored();

    const patched = await patch({ safety: { max_step_percent: 7 } });

    expect(patched.status).toBe(200);
    expect(patched.body.safety).toEqual({ ...before.record.safety, max_step_percent: 7 });
    expect(patched.body).toMatchObject({ mode: 'live', status: 'paused', last_error: 'circuit breaker: test', prices_sent: before.record.prices_sent });
    expect(patched.body.updated_at >= before.record.updated_at).toBe(true);
    const after = await stored();
    expect(after.sendHoldUntil).toBe(hold);
    expect(after.sealedKey).toEqual(before.sealedKey);
    expect(after.record).toEqual(patched.body);

    const both = await patch({ mode: 'suggest', safety: { breaker_window_minutes: 30, max_changes_per_day: 10 } });
    expect(both.body).toMatchObject({
      mode: 'suggest',
      status: 'paused',
      safety: { max_step_percent: 7, breaker_window_minutes: 30, max_changes_per_day: 10 },
    });
    expect((await request('POST', '/v1/connections/takealot/resume')).status).toBe(200);
    expect((await patch({ mode: 'live' })).body).toMatchObject({ mode: 'live', status: 'connected' });
  });

  it('answers 404 without a connection and 400 (problem+json) for a body it cannot apply, changing nothing', async () => {
    const before = await stored();
    const missing = await patch({ mode: 'suggest' }, 'amazon');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    for (const body of [{}, { mode: 'off' }, { safety: {} }, { safety: { max_step_percent: 0 } }, { safety: { colour: 1 } }, { api_key: market.apiKey }, []]) {
      const refused = await patch(body);
      expect([refused.status, body]).toEqual([400, body]);
      expect(refused.headers['content-type']).toContain('application/problem+json');
    }
    expect(await stored()).toEqual(before);
  });
});

describe('PATCH of a connection stored before there were limits', () => {
  it('sets the defaults with the named limit changed, and nothing else', async () => {
    const { DeleteCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { documentClient, tableName } = await import('../../lambdas/data/table/dynamo.js');
    const { connectionKey } = await import('../../lambdas/data/table/keys.js');
    const current = await stored();
    const { safety: _safety, ...legacy } = { ...current.record, connector: 'amazon', uid: '4f0c2a9e-1b7d-4c3e-9a51-2d6e8f7a0b13' };
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...connectionKey(clientId, 'amazon'), entity: 'connection', record: legacy, sealedKey: current.sealedKey },
      }),
    );

    const patched = await patch({ safety: { max_step_percent: 5 } }, 'amazon');

    expect(patched.status).toBe(200);
    expect(patched.body.safety).toEqual({ ...domain.DEFAULT_SAFETY, max_step_percent: 5 });
    expect(patched.body).toMatchObject({ mode: legacy.mode, status: legacy.status, uid: legacy.uid });
    expect((await patch({ safety: { max_changes_per_day: 9 } }, 'amazon')).body.safety).toEqual({
      ...domain.DEFAULT_SAFETY,
      max_step_percent: 5,
      max_changes_per_day: 9,
    });
    await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: connectionKey(clientId, 'amazon') }));
  });
});

describe('PUT with a new key', () => {
  it('keeps a pause (and its reason), the hold, the resume marker and the counters a breaker trip wrote between its read and its write', async () => {
    // A resume first, so the connection carries the breaker's resume marker.
    await data.pauseConnection(clientId, (await stored()).record, 'circuit breaker: earlier');
    expect((await request('POST', '/v1/connections/takealot/resume')).status).toBe(200);
    const resumedAt = (await stored()).breakerClearedAt;
    expect(resumedAt).toBeDefined();
    const newKey = 'tk_live_a_new_key_0009';
    const sealedKey = await secrets.sealConnectionSecret('marketplace-key', clientId, 'takealot', newKey);
    // Longer than the hold an earlier test left: the trip's hold is the one in force.
    const hold = new Date(Date.now() + 10 * 60_000).toISOString();
    const now = new Date().toISOString();
    let builds = 0;

    const result = await data.putConnection(clientId, 'takealot', { sealedKey }, async (before) => {
      builds++;
      if (builds === 1) {
        // Between the PUT's read and its write: the breaker trips, the seller API is held, a push is counted.
        expect(await data.pauseConnection(clientId, before!, 'circuit breaker: 5 of 6 offers dropped')).toBe(true);
        await holds.holdSellerApi(clientId, 'takealot', hold);
        const { countPricesSent } = await import('../../lambdas/data/price-changes/sending.js');
        await countPricesSent(clientId, 'takealot', 2);
      }
      return domain.connectedRecord('takealot', { apiKey: newKey, webhookSecretSet: false, mode: 'live' }, before, now);
    });

    expect(result.kind).toBe('replaced');
    expect(builds).toBe(2);
    const after = await stored();
    expect(after.record).toMatchObject({ key_last4: '0009', status: 'paused', last_error: 'circuit breaker: 5 of 6 offers dropped', mode: 'live' });
    expect(after.sendHoldUntil).toBe(hold);
    expect(after.breakerClearedAt).toBe(resumedAt);
    expect(after.record.prices_sent).toBeGreaterThanOrEqual(2);
    expect(await secrets.openConnectionSecret('marketplace-key', clientId, 'takealot', after.sealedKey)).toBe(newKey);
    expect(result.kind === 'replaced' && result.record).toEqual(after.record);
  });

  it('through the API: a paused connection stays paused with its reason; an unauthorized one is connected again with its error cleared', async () => {
    const paused = await put({ api_key: market.apiKey, mode: 'live', safety: { breaker_share_percent: 100 } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', last_error: 'circuit breaker: 5 of 6 offers dropped', key_last4: market.apiKey.slice(-4) });
    expect((await request('POST', '/v1/connections/takealot/resume')).status).toBe(200);

    const seen = (await stored()).record;
    expect(await data.recordSyncOutcome(clientId, seen, { status: 'unauthorized', last_error: 'the key was refused' })).toBe(true);
    const hold = (await stored()).sendHoldUntil;
    const renewed = await put({ api_key: market.apiKey, mode: 'live' });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ status: 'connected', last_error: null });
    expect((await stored()).sendHoldUntil).toBe(hold);
  });
});

describe('the seller-API hold', () => {
  it('replaces a hold stored beyond the cap (an epoch once read as seconds), and still only lengthens one within it', async () => {
    await setSellerApiHold(clientId, 'takealot', '2082-11-28T12:00:00.000Z');
    const soon = new Date(Date.now() + 60_000).toISOString();
    await holds.holdSellerApi(clientId, 'takealot', soon);
    expect(await sellerApiHoldOf(clientId, 'takealot')).toBe(soon);
    await holds.holdSellerApi(clientId, 'takealot', new Date(Date.now() + 30_000).toISOString());
    expect(await sellerApiHoldOf(clientId, 'takealot')).toBe(soon);
    const longest = new Date(Date.now() + MARKETPLACE_HOLD_MAX_MS).toISOString();
    await holds.holdSellerApi(clientId, 'takealot', longest);
    expect(await sellerApiHoldOf(clientId, 'takealot')).toBe(longest);
    await setSellerApiHold(clientId, 'takealot', new Date(0).toISOString());
  });
});

describe('the operator’s stop of every push', () => {
  it('holds a decision pending (not failed) while pushes are stopped, and sends it once they are resumed', async () => {
    const { defaultPushDeps, sweepConnection } = await import('../../lambdas/functions/send-prices/worker.js');
    const { changesInStatus } = await import('../../lambdas/data/price-changes/sending.js');
    const { forgetConnectionModes } = await import('../../lambdas/data/connections/mode.js');
    forgetConnectionModes();
    const loop = marketHarness(api);
    const uid = (await connection()).uid;
    await loop.tick({ uids: [uid] });
    const product: MarketProduct = market.simulation.market.products[0]!;
    const price = product.own.selling_price;
    // Floor and ceiling at the offer's price: it decides nothing until the price is pinned below.
    const created = await request<{ id: number }>('POST', '/v1/repricers', {
      product_code: product.own.sku,
      preferred_price: price,
      preferred_profit: 0,
      connector: 'takealot',
      enabled: true,
    });
    expect(created.status).toBe(201);
    await api.settle();
    const received = () =>
      market.control
        .prices()
        .offers.find((history) => history.offer_id === product.own.offer_id)
        ?.received.map((e) => e.selling_price) ?? [];
    const sentBefore = received();

    const stopped = await cliInProcess(['pushes', 'stop', '--reason', 'marketplace incident']);
    expect(stopped.code).toBe(0);
    const pinned = await request('PATCH', `/v1/repricers/${created.body.id}`, { preferred_price: price - 2, preferred_profit: 0 });
    expect(pinned.status).toBe(200);
    await api.settle();
    const sweep = () => sweepConnection(clientId, 'takealot', defaultPushDeps);
    await sweep();
    await loop.tick({ uids: [uid] });
    await sweep();

    const pending = (await changesInStatus(clientId, 'takealot', 'pending', 50)).filter((ref) => ref.productCode === product.own.sku);
    expect(pending).toHaveLength(1);
    expect(received()).toEqual(sentBefore);
    expect((await connection()).status).toBe('connected');

    const resumed = await cliInProcess(['pushes', 'resume', '--yes']);
    expect(resumed.code).toBe(0);
    await sweep();
    await api.settle();
    expect(received()).toEqual([...sentBefore, price - 2]);
    expect((await changesInStatus(clientId, 'takealot', 'pending', 50)).filter((ref) => ref.productCode === product.own.sku)).toEqual([]);
  });
});
